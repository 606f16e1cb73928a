// Cross-checks with the real MongoDB Database Tools (100.18.0, built by
// scripts/ensure-mongo-tools.sh): an archive the agent's built-in dump writes must restore with
// the real mongorestore, an archive the real mongodump writes must restore with the agent's
// built-in restore, and native mode must run the real tools and report their counts exactly.
// Each direction compares the restored database with the source: documents byte for byte,
// collection options and index specs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import { decryptBuffer, encryptBuffer, generateMasterKey } from "../src/archive/index.ts";
import { createBackupStream, restoreDatabase, restoreFromEncrypted } from "../src/dump/index.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { buildAwkwardDatabase } from "./support/awkward-database.ts";
import { snapshotDatabase } from "./support/database-snapshot.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./support/test-env.ts";

const { tools, missing } = findMongoTools();
if (missing) console.warn(`skipped: real-tools cross-checks (${missing})`);

const masterKey = generateMasterKey();

/** Runs a real tool with `input` on stdin; answers its stdout, or throws with its stderr. */
async function runTool(path: string, args: string[], input?: Buffer): Promise<{ stdout: Buffer; stderr: string }> {
  const child = Bun.spawn([path, ...args], { stdin: input ? new Blob([new Uint8Array(input)]) : "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).arrayBuffer(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`${path} ${args.join(" ")} exited with ${code}:\n${stderr}`);
  return { stdout: Buffer.from(stdout), stderr };
}

describe.skipIf(missing !== null)("with the real mongodump and mongorestore", () => {
  let env: AgentTestEnv;
  let source: string;

  beforeAll(async () => {
    env = await openAgentTestEnv();
    source = env.uniqueDatabase("awkward");
    await buildAwkwardDatabase(env.client.db(source));
  });
  afterAll(() => env?.close());

  async function builtInBackup(database: string, mode: "builtin" | "native" = "builtin") {
    const backup = createBackupStream({ uri: env.uriFor(database), masterKey, tools: mode === "builtin" ? { mode } : { mode, mongodump: tools!.mongodump }, progressIntervalMs: 0 });
    const chunks: Buffer[] = [];
    for await (const chunk of backup.stream) chunks.push(chunk as Buffer);
    return { file: Buffer.concat(chunks), result: await backup.result };
  }

  test("the built-in dump's archive restores with the real mongorestore, identical", async () => {
    const { file } = await builtInBackup(source);
    const { plaintext: archive } = await decryptBuffer(file, { masterKey });
    const target = env.uniqueDatabase("by-mongorestore");
    const { stderr } = await runTool(tools!.mongorestore, [`--uri=${env.uriFor("")}`, "--archive", `--nsFrom=${source}.*`, `--nsTo=${target}.*`], archive);
    expect(stderr).toContain("0 document(s) failed to restore");
    expect(await snapshotDatabase(env.client.db(target))).toEqual(await snapshotDatabase(env.client.db(source)));
  });

  test("the real mongodump's archive restores with the built-in restore, identical", async () => {
    const { stdout: archive } = await runTool(tools!.mongodump, [`--uri=${env.uriFor("")}`, `--db=${source}`, "--archive"]);
    const target = env.uniqueDatabase("by-builtin");
    const result = await restoreDatabase({ uri: env.uriFor(target), input: Readable.from([archive]), tools: { mode: "builtin" } });
    expect(result.failed).toBe(0);
    expect(await snapshotDatabase(env.client.db(target))).toEqual(await snapshotDatabase(env.client.db(source)));
  });

  test("native mode runs the real tools and reports their counts exactly", async () => {
    const { file, result: dumped } = await builtInBackup(source, "native");
    expect(dumped.engine).toBe("native");
    // The same namespaces and counts as the built-in dump reports (views with 0), each count the
    // collection's own.
    const { result: builtIn } = await builtInBackup(source);
    expect(dumped.collections).toEqual(builtIn.collections);
    for (const { name, type } of await env.client.db(source).listCollections().toArray()) {
      const count = type === "view" ? 0 : await env.client.db(source).collection(name).countDocuments();
      expect([name, dumped.collections[`${source}.${name}`]]).toEqual([name, count]);
    }
    const expected = dumped.collections;

    const target = env.uniqueDatabase("native-restore");
    const restored = await restoreFromEncrypted({
      uri: env.uriFor(target),
      masterKey,
      input: Readable.from([file]),
      inputBytes: file.length,
      tools: { mode: "native", mongorestore: tools!.mongorestore },
    });
    expect(restored.engine).toBe("native");
    const documents = Object.values(expected).reduce((sum, n) => sum + n, 0);
    expect(restored.restored).toBe(documents);
    expect(restored.failed).toBe(0);
    expect(Object.keys(restored.collections).sort()).toEqual(Object.keys(expected).map((ns) => ns.replace(source, target)).sort());
    expect(await snapshotDatabase(env.client.db(target))).toEqual(await snapshotDatabase(env.client.db(source)));
  });
});
