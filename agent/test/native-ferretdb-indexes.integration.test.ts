// FerretDB 1.x refuses the index option "ns", which the real mongorestore 100.18.0 sends with
// every secondary index it recreates: a native restore of an indexed collection cannot work
// there. Auto mode must notice before anything is changed and restore with the built-in engine,
// saying so; native mode must refuse, before anything is changed, and say what to do.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { MongoClient } from "mongodb";
import { encodeMasterKey, generateMasterKey } from "../src/archive/index.ts";
import { DumpError, restoreFromEncrypted, type ToolsConfig } from "../src/dump/index.ts";
import { type FerretDbServer, findFerretDb, startFerretDb } from "../../testkit/ferretdb.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { backUpToBuffer } from "./support/back-up.ts";
import { type CollectionSnapshot, snapshotDatabase } from "./support/database-snapshot.ts";
import { runAgent } from "./support/run-agent.ts";

const { tools, missing: toolsMissing } = findMongoTools();
const missing = toolsMissing ?? findFerretDb().missing;
const masterKey = generateMasterKey();

let ferretdb: FerretDbServer;
let client: MongoClient;
let indexedBackup: Buffer;
let plainBackup: Buffer;
let backup: CollectionSnapshot[];
let live: CollectionSnapshot[];
const uriFor = (database: string) => ferretdb.uri.replace(/\/[^/?]*(\?|$)/, `/${database}$1`);

describe.skipIf(missing !== null)(`on FerretDB, native restores of secondary indexes${missing ? ` [skipped: ${missing}]` : ""}`, () => {
  beforeAll(async () => {
    ferretdb = await startFerretDb();
    client = await new MongoClient(ferretdb.uri).connect();
    const source = client.db("source");
    await source.collection("people").insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i, email: `p${i}@example.com`, age: i })) as never[]);
    await source.collection("people").createIndexes([
      { key: { email: 1 }, name: "email_unique", unique: true },
      { key: { age: -1 }, name: "age" },
    ]);
    await source.collection("notes").insertMany([{ _id: 1, text: "no secondary index" }] as never[]);
    backup = await snapshotDatabase(source);
    ({ file: indexedBackup } = await backUpToBuffer({ uri: uriFor("source"), masterKey, tools: { mode: "builtin" } }));
    await source.collection("people").dropIndexes();
    ({ file: plainBackup } = await backUpToBuffer({ uri: uriFor("source"), masterKey, tools: { mode: "builtin" } }));
  });
  afterAll(async () => {
    await client?.close();
    await ferretdb?.stop();
  });
  beforeEach(async () => {
    const target = client.db("target");
    await target.dropDatabase();
    await target.collection("people").insertOne({ _id: "live" } as never);
    await target.collection("mine").insertOne({ _id: "kept" } as never);
    live = await snapshotDatabase(target);
  });

  function restore(file: Buffer, tools: ToolsConfig, notices: string[] = []) {
    return restoreFromEncrypted({ uri: uriFor("target"), masterKey, input: Readable.from([file]), tools, onNotice: (message) => notices.push(message) });
  }

  test("auto mode restores with the built-in engine instead, saying why, indexes included", async () => {
    const notices: string[] = [];
    const result = await restore(indexedBackup, { mode: "auto", mongorestore: tools!.mongorestore }, notices);

    expect(result.engine).toBe("builtin");
    expect(notices).toContain(
      'mongorestore cannot recreate the secondary indexes of target.people on FerretDB v1.24.2 (it sends the index option "ns", which FerretDB refuses); using the built-in engine',
    );
    const now = await snapshotDatabase(client.db("target"));
    expect(now.filter((entry) => entry.name !== "mine")).toEqual(backup);
    expect(now.find((entry) => entry.name === "mine")).toEqual(live.find((entry) => entry.name === "mine"));
  });

  test("native mode refuses before changing anything, and says how to restore", async () => {
    const error = await restore(indexedBackup, { mode: "native", mongorestore: tools!.mongorestore }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(DumpError);
    expect(error).toMatchObject({
      code: "unsupported",
      message:
        'mongorestore cannot recreate the secondary indexes of target.people on FerretDB v1.24.2 (it sends the index option "ns", which FerretDB refuses)',
      hint: 'set tools.mode to "auto" or "builtin" in the config file to restore with the built-in engine',
    });
    expect(await snapshotDatabase(client.db("target"))).toEqual(live);
  });

  test("the command line says which engine restored and why", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dbvault-ferretdb-cli-"));
    try {
      const config = join(dir, "agent.json");
      const file = join(dir, "indexed.enc.dbvault");
      await writeFile(file, indexedBackup);
      const databases = [{ name: "target", uri: uriFor("target") }];
      await writeFile(
        config,
        JSON.stringify({ version: 1, masterKey: encodeMasterKey(masterKey), databases, tools: { mode: "auto", mongorestore: tools!.mongorestore } }),
        { mode: 0o600 },
      );

      const run = await runAgent(["restore", "--db", "target", "--in", file, "--config", config, "--quiet"]);

      expect(run.stderr).toBe(
        "dbvault-agent: verifying the whole backup before changing anything\n" +
          'dbvault-agent: mongorestore cannot recreate the secondary indexes of target.people on FerretDB v1.24.2 (it sends the index option "ns", which FerretDB refuses); using the built-in engine\n' +
          `dbvault-agent: restored 21 documents into 2 collections of target with the built-in engine from ${file}; created target.notes; replaced target.people, nothing else changed\n`,
      );
      expect(run.exitCode).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("without secondary indexes auto mode keeps mongorestore", async () => {
    const notices: string[] = [];
    const result = await restore(plainBackup, { mode: "auto", mongorestore: tools!.mongorestore }, notices);

    expect(result.engine).toBe("native");
    expect(notices.filter((notice) => notice.includes("built-in"))).toEqual([]);
  });
});
