// Golden CLI test of restore's failure messages against the project's MongoDB test server: the
// agent's own process, its exact stderr and exit code. Messages start lowercase, but names spelled
// with capitals inside ("MongoDB") keep them.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeMasterKey, encryptBuffer, generateMasterKey } from "../src/archive/index.ts";
import { useOwnTestServer } from "./support/own-test-server.ts";
import { writeRefusedArchive } from "./support/refused-archive.ts";
import { runAgent } from "./support/run-agent.ts";

const masterKey = generateMasterKey();
const own = useOwnTestServer();
let dir: string;
let config: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dbvault-cli-restore-"));
  config = join(dir, "agent.json");
  const databases = [{ name: "shop", uri: `${own.server.uri}shop` }];
  await writeFile(config, JSON.stringify({ version: 1, masterKey: encodeMasterKey(masterKey), databases, tools: { mode: "builtin" } }), { mode: 0o600 });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("documents the server refuses: nothing changed, and MongoDB is named with its capitals", async () => {
  const archive: Uint8Array[] = [];
  for await (const chunk of writeRefusedArchive("shop")) archive.push(chunk);
  const file = join(dir, "refused.enc.dbvault");
  await writeFile(file, await encryptBuffer(Buffer.concat(archive), { masterKey }));
  await own.client
    .db("shop")
    .collection("people")
    .insertOne({ _id: "kept" } as never);

  const run = await runAgent(["restore", "--db", "shop", "--in", file, "--config", config, "--quiet"]);

  expect(run.stderr).toMatch(
    new RegExp(
      "^dbvault-agent: verifying the whole backup before changing anything\\n" +
        "dbvault-agent: nothing was changed in shop\\n" +
        "dbvault-agent: MongoDB refused 2 document\\(s\\), so nothing was replaced \\(first: shop\\.people: E11000 duplicate key[^\\n]*\\)\\n" +
        "dbvault-agent: hint: a unique index or a validator of the target refused them; the backup itself is intact\\n$",
    ),
  );
  expect(run.exitCode).toBe(1);
  expect(await own.client.db("shop").collection("people").find().toArray()).toEqual([{ _id: "kept" } as never]);
});
