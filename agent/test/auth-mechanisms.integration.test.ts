// The authentication mechanisms tested here, through both engines: SCRAM-SHA-256 (the driver's
// and mongodump's default with MongoDB 4.0+) and SCRAM-SHA-1 (authMechanism=SCRAM-SHA-1, as older
// deployments and some providers ask), each against the project's test server, which answers
// SCRAM conversations as mongod does (x509 has its own suite, x509.integration.test.ts). The
// string's authMechanism reaches the driver and mongodump unchanged: the server sees the
// mechanism named. A wrong password under SCRAM-SHA-1 is named as one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { encodeMasterKey, generateMasterKey } from "../src/archive/index.ts";
import { type MongoTestServer, startMongoTestServer } from "../../testkit/mongo-server/index.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { snapshotDatabase } from "./support/database-snapshot.ts";
import { runAgent } from "./support/run-agent.ts";

const { tools, missing: toolsMissing } = findMongoTools();
if (toolsMissing) console.warn(`authentication mechanisms with the native engine: skipped (${toolsMissing})`);

let work: string;
let server: MongoTestServer;
let client: MongoClient;
const mechanismsSeen: string[] = [];

const uriWith = (mechanism: string, password = "s3cret-pw") =>
  `mongodb://agent:${password}@127.0.0.1:${server.port}/shop?authSource=admin&authMechanism=${mechanism}`;

function writeConfig(name: string, uri: string, mode: "builtin" | "native"): string {
  const path = join(work, `${name}.json`);
  const toolsConfig = mode === "builtin" ? { mode } : { mode, mongodump: tools!.mongodump, mongorestore: tools!.mongorestore };
  writeFileSync(path, JSON.stringify({ version: 1, masterKey: encodeMasterKey(generateMasterKey()), databases: [{ name: "shop", uri }], tools: toolsConfig }), {
    mode: 0o600,
  });
  return path;
}

const agent = (args: string[], env: Record<string, string> = {}) => runAgent(args, { env: { HOME: join(work, "home"), ...env } });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "dbvault-mechanisms-"));
  server = await startMongoTestServer({ users: [{ username: "agent", password: "s3cret-pw" }] });
  server.intercept((command) => {
    if (command.name === "saslStart") mechanismsSeen.push(String(command.body.mechanism));
  });
  client = await new MongoClient(uriWith("SCRAM-SHA-256")).connect();
});
afterAll(async () => {
  await client?.close();
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("authentication mechanisms", () => {
  for (const mode of ["builtin", "native"] as const) {
    for (const mechanism of ["SCRAM-SHA-256", "SCRAM-SHA-1"]) {
      test.skipIf(mode === "native" && toolsMissing !== null)(
        `${mode}: dump, verify and restore with ${mechanism}`,
        async () => {
          const db = client.db("shop");
          await db.dropDatabase();
          await db.collection("orders").insertMany(Array.from({ length: 30 }, (_, i) => ({ _id: i, total: i })) as never[]);
          const before = await snapshotDatabase(db);
          const config = writeConfig(`${mode}-${mechanism}`, uriWith(mechanism), mode);
          const backup = join(work, `shop-${mode}-${mechanism}.enc.dbvault`);
          mechanismsSeen.length = 0;
          const dumped = await agent(["dump", "--db", "shop", "--out", backup, "--config", config]);
          expect(dumped.stderr).toContain(mode === "native" ? "mongodump" : "built-in");
          expect(dumped.exitCode).toBe(0);
          expect((await agent(["verify", "--in", backup, "--config", config])).exitCode).toBe(0);
          await db.dropDatabase();
          const restored = await agent(["restore", "--db", "shop", "--in", backup, "--config", config, "--quiet"]);
          expect(restored.exitCode).toBe(0);
          expect(await snapshotDatabase(db)).toEqual(before);
          // Every conversation of the agent and of mongodump/mongorestore used the string's mechanism.
          expect(mechanismsSeen.length).toBeGreaterThan(0);
          expect(new Set(mechanismsSeen)).toEqual(new Set([mechanism]));
          for (const run of [dumped, restored]) expect(run.stderr).not.toContain("s3cret-pw");
        },
        120_000,
      );
    }
  }

  test("db add: a wrong password under SCRAM-SHA-1 is named as one", async () => {
    const config = writeConfig("wrong", uriWith("SCRAM-SHA-256"), "builtin");
    const run = await agent(["db", "add", "--db", "other", "--config", config], { DBVAULT_DB_URI: uriWith("SCRAM-SHA-1", "not-the-pw") });
    expect(run.stderr).toBe(
      `dbvault-agent: cannot use the database "other": 127.0.0.1:${server.port} refused the user name or password (authentication failed)\n` +
        "dbvault-agent: hint: check the user and password in the connection string; a user created in the admin database needs ?authSource=admin at its end; nothing was saved\n",
    );
    expect(run.exitCode).toBe(1);
  }, 60_000);
});
