// Cross-checks with the real MongoDB Database Tools (100.18.0, built by
// scripts/ensure-mongo-tools.sh), on every target (testkit/mongo-targets.ts): an archive the
// agent's built-in dump writes must restore with the real mongorestore, an archive the real
// mongodump writes must restore with the agent's built-in restore once sealed by `encrypt`, native
// mode must run the real tools and report their counts exactly, and bsondump --objcheck must
// accept every collection of the agent's archives. Each direction compares the restored database
// with the source: documents byte for byte, collection options and index specs.
// The daemon and the CLI with the real tools on PATH: real-tools-daemon.integration.test.ts.
import { beforeAll, describe, expect } from "bun:test";
import { Readable } from "node:stream";
import { decryptBuffer, encryptBuffer, generateMasterKey } from "../src/archive/index.ts";
import { restoreFromEncrypted } from "../src/dump/index.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { listMongoTargets, type MongoTargetSpec, testOnTarget } from "../../testkit/mongo-targets.ts";
import { type AwkwardContent, useAwkwardTarget } from "./support/awkward-database.ts";
import { snapshotDatabase } from "./support/database-snapshot.ts";
import { runTool, writeBsonFiles } from "./support/real-tools.ts";
import { backUpToBuffer } from "./support/back-up.ts";
import type { AgentTestEnv } from "./support/test-env.ts";

const { tools, missing } = findMongoTools();
const masterKey = generateMasterKey();

/** The target, unavailable as well when the tools could not be built (its tests then say why). */
function withTools(target: MongoTargetSpec): MongoTargetSpec {
  return missing === null ? target : { ...target, unavailable: target.unavailable ?? missing };
}

for (const target of listMongoTargets().map(withTools)) {
  describe(`on ${target.name}, with the real mongodump, mongorestore and bsondump`, () => {
    // mongorestore recreates indexes only where the server takes the index option "ns".
    const awkward = useAwkwardTarget(target, { secondaryIndexes: !target.lacks["mongorestore-indexes"] });
    let env: AgentTestEnv;
    let source: string;
    let content: AwkwardContent;
    beforeAll(() => ({ env, source, content } = awkward));

    const backUp = (database: string, mode: "builtin" | "native" = "builtin") =>
      backUpToBuffer({
        uri: env.uriFor(database),
        masterKey,
        tools: mode === "builtin" ? { mode } : { mode, mongodump: tools!.mongodump },
        progressIntervalMs: 0,
      });

    testOnTarget(target, [], "the built-in dump's archive, decrypted, restores with the real mongorestore, identical", async () => {
      const { file } = await backUp(source);
      const { plaintext: archive } = await decryptBuffer(file, { masterKey });
      const copy = env.uniqueDatabase("by_mongorestore");
      const { stderr } = await runTool(tools!.mongorestore, [`--uri=${env.uriFor("")}`, "--archive", `--nsFrom=${source}.*`, `--nsTo=${copy}.*`], archive);
      expect(stderr).toContain(
        `${Object.values(content.counts).reduce((sum, n) => sum + n, 0)} document(s) restored successfully. 0 document(s) failed to restore.`,
      );
      expect(await snapshotDatabase(env.client.db(copy))).toEqual(await snapshotDatabase(env.client.db(source)));
    });

    testOnTarget(target, ["mongorestore-indexes"], "the comparison above covers secondary indexes recreated by the real mongorestore", async () => {
      const indexes = await env.client.db(source).collection("indexed").listIndexes().toArray();
      expect(indexes.map((index) => index.name)).toEqual(expect.arrayContaining(["_id_", "email_unique", "a_b", "sparse"]));
    });

    testOnTarget(target, [], "the real mongodump's archive, sealed by encrypt, restores with the built-in restore, identical", async () => {
      const { stdout: archive } = await runTool(tools!.mongodump, [`--uri=${env.uriFor("")}`, `--db=${source}`, "--archive"]);
      const sealed = await encryptBuffer(archive, { masterKey });
      const copy = env.uniqueDatabase("by_builtin");
      const result = await restoreFromEncrypted({ uri: env.uriFor(copy), masterKey, input: Readable.from([sealed]), tools: { mode: "builtin" } });
      expect(result.failed).toBe(0);
      expect(result.restored).toBe(Object.values(content.counts).reduce((sum, n) => sum + n, 0));
      expect(await snapshotDatabase(env.client.db(copy))).toEqual(await snapshotDatabase(env.client.db(source)));
    });

    testOnTarget(target, [], "native mode runs the real tools and reports their counts exactly", async () => {
      const { file, result: dumped } = await backUp(source, "native");
      expect(dumped.engine).toBe("native");
      // The same namespaces and counts as the built-in dump reports (views with 0), each the collection's own.
      const { result: builtIn } = await backUp(source);
      expect(dumped.collections).toEqual(builtIn.collections);
      expect(dumped.collections).toEqual(Object.fromEntries(Object.entries(content.counts).map(([name, count]) => [`${source}.${name}`, count])));

      const copy = env.uniqueDatabase("native_restore");
      const restored = await restoreFromEncrypted({
        uri: env.uriFor(copy),
        masterKey,
        input: Readable.from([file]),
        inputBytes: file.length,
        tools: { mode: "native", mongorestore: tools!.mongorestore },
      });
      expect(restored.engine).toBe("native");
      expect(restored.failed).toBe(0);
      expect(restored.restored).toBe(dumped.documents);
      expect(restored.collections).toEqual(
        Object.fromEntries(Object.entries(content.counts).map(([name, count]) => [`${copy}.${name}`, { restored: count, failed: 0 }])),
      );
      expect(await snapshotDatabase(env.client.db(copy))).toEqual(await snapshotDatabase(env.client.db(source)));
    });

    testOnTarget(target, [], "bsondump --objcheck accepts every collection of the agent's archive", async () => {
      const { file } = await backUp(source);
      const { plaintext: archive } = await decryptBuffer(file, { masterKey });
      const files = await writeBsonFiles(archive, await env.makeTempDir());
      expect(files.map((entry) => entry.namespace).sort()).toEqual(content.collections.map((name) => `${source}.${name}`).sort());
      for (const entry of files) {
        const { stderr } = await runTool(tools!.bsondump, ["--objcheck", `--bsonFile=${entry.path}`, "--outFile=/dev/null"]);
        expect([entry.namespace, stderr.trim().split("\t").at(-1)]).toEqual([entry.namespace, `${entry.documents} objects found`]);
      }
    });
  });
}
