// The README's "Disaster recovery" without a server, with the compiled agent: the machine that
// made the backup is gone; a new machine holding only the saved master key and the downloaded
// .enc.dbvault file restores it with `restore --uri` (a whole copy, or chosen collections into
// another database), and `db add` saves a database with no server to register it with.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ensureFreshBinary } from "./support/end-to-end.ts";
import { BINARY_PATH, runAgent } from "./support/run-agent.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./support/test-env.ts";

let env: AgentTestEnv;
const agentCli = (args: string[], options: { stdin?: string; env?: Record<string, string> } = {}) =>
  runAgent(args, { command: [BINARY_PATH], env: options.env, ...(options.stdin === undefined ? {} : { stdin: new TextEncoder().encode(options.stdin) }) });

const ORDERS = Array.from({ length: 300 }, (_, i) => ({ _id: i, total: i * 3 }));
const CUSTOMERS = Array.from({ length: 5 }, (_, i) => ({ _id: `c${i}`, name: `customer ${i}` }));

beforeAll(async () => {
  await ensureFreshBinary();
  env = await openAgentTestEnv();
}, 120_000); // a stale binary is built first
afterAll(() => env.close());

const documentsOf = (database: string, collection: string): Promise<unknown[]> =>
  env.client.db(database).collection(collection).find().sort({ _id: 1 }).toArray();

test("a new machine with only the saved key restores a downloaded backup: no server, no database entry", async () => {
  const source = env.uniqueDatabase("dr_offline");
  await env.client
    .db(source)
    .collection<{ _id: number; total: number }>("orders")
    .insertMany(ORDERS.map((order) => ({ ...order })));
  await env.client
    .db(source)
    .collection<{ _id: string; name: string }>("customers")
    .insertMany(CUSTOMERS.map((customer) => ({ ...customer })));

  // The old machine: a key, a database added with no server, a backup, and the key saved as told.
  const oldDir = await env.makeTempDir();
  const oldConfig = join(oldDir, "agent.json");
  expect((await agentCli(["key", "generate", "--config", oldConfig])).exitCode).toBe(0);
  const added = await agentCli(["db", "add", "--db", "shop", "--config", oldConfig], { env: { DBVAULT_DB_URI: env.uriFor(source) } });
  expect(added.stderr).toContain(`dbvault-agent: added "shop" to ${oldConfig}\n`);
  expect(added.stderr).toContain('this config is connected to no DBVault server, so "shop" was not registered');
  expect(added.exitCode).toBe(0);
  const backup = join(await env.makeTempDir(), "shop.enc.dbvault");
  expect((await agentCli(["dump", "--db", "shop", "--out", backup, "--config", oldConfig, "--quiet"])).exitCode).toBe(0);
  const savedKey = (await agentCli(["key", "export", "--config", oldConfig])).stdout;
  await rm(oldDir, { recursive: true, force: true });
  await env.client.db(source).dropDatabase();

  // The new machine, as the README walks it.
  const newDir = await env.makeTempDir();
  const config = join(newDir, "agent.json");
  const keyFile = join(newDir, "saved-key.txt");
  await writeFile(keyFile, savedKey);
  const imported = await agentCli(["key", "import", "--key-file", keyFile, "--config", config]);
  expect(imported.exitCode).toBe(0);

  const restored = await agentCli(["restore", "--uri", env.uriFor(source), "--in", backup, "--config", config]);
  expect(restored.stderr).toContain(`restored 305 documents into 2 collections of ${source} with the built-in engine from ${backup}; created `);
  expect(restored.stderr).not.toContain("replaced");
  expect(restored.stderr).not.toContain("Verifying backup…");
  expect(restored.exitCode).toBe(0);
  expect(await documentsOf(source, "orders")).toEqual(ORDERS);
  expect(await documentsOf(source, "customers")).toEqual(CUSTOMERS);

  // Chosen collections into another database on the same server: a copy beside the original.
  const copy = env.uniqueDatabase("dr_offline_copy");
  const partial = await agentCli([
    "restore",
    "--uri",
    env.uriFor(source),
    "--to-db",
    copy,
    "--collections",
    "orders",
    "--in",
    backup,
    "--config",
    config,
    "--quiet",
  ]);
  expect(partial.stderr).toContain(
    `restored 300 documents into 1 collection of ${copy} with the built-in engine from ${backup}; created ${copy}.orders, nothing else changed`,
  );
  expect(partial.exitCode).toBe(0);
  expect(await documentsOf(copy, "orders")).toEqual(ORDERS);
  expect(await env.client.db(copy).listCollections().toArray()).toHaveLength(1);

  // Again over the restored database: now the collections are replaced. Through a database entry
  // added with no server this time.
  await env.client
    .db(source)
    .collection<{ _id: number; total: number }>("orders")
    .deleteMany({ _id: { $gte: 100 } });
  const entry = await agentCli(["db", "add", "--db", "shop", "--config", config], { env: { DBVAULT_DB_URI: env.uriFor(source) } });
  expect(entry.exitCode).toBe(0);
  const again = await agentCli(["restore", "--db", "shop", "--in", backup, "--config", config, "--quiet"]);
  expect(again.stderr).toContain(`; replaced ${source}.customers, ${source}.orders, nothing else changed`);
  expect(again.exitCode).toBe(0);
  expect(await documentsOf(source, "orders")).toEqual(ORDERS);
});
