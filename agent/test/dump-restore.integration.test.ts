// The library path the daemon uses: dump → compress → encrypt → decrypt → restore into a fresh
// database must reproduce every collection exactly: documents byte for byte, options, indexes.
// On every target (testkit/mongo-targets.ts); what a target cannot hold is left out of the
// database and the tests about it are skipped there, saying why.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import { generateMasterKey } from "../src/archive/index.ts";
import { Int32 } from "mongodb";
import { createBackupStream, DumpError, type Progress, restoreDatabase, restoreFromEncrypted } from "../src/dump/index.ts";
import { summarizeArchive } from "../src/dump/mongodump-archive/index.ts";
import { createDecryptStream } from "../src/archive/index.ts";
import { listMongoTargets, testOnTarget } from "../../testkit/mongo-targets.ts";
import { waitUntil } from "../../testkit/wait-until.ts";
import { type AnyIdDocument, type AwkwardContent, useAwkwardTarget } from "./support/awkward-database.ts";
import { type CollectionSnapshot, snapshotDatabase } from "./support/database-snapshot.ts";
import { backUpToBuffer } from "./support/back-up.ts";
import { writeRefusedArchive } from "./support/refused-archive.ts";
import type { AgentTestEnv } from "./support/test-env.ts";

const masterKey = generateMasterKey();

for (const target of listMongoTargets()) {
  describe(`on ${target.name}`, () => {
    const awkward = useAwkwardTarget(target);
    let env: AgentTestEnv;
    let source: string;
    let content: AwkwardContent;
    beforeAll(() => ({ env, source, content } = awkward));

    async function backUp(database: string, progress: Progress[] = []): Promise<Buffer> {
      const options = { uri: env.uriFor(database), masterKey, tools: { mode: "builtin" }, progressIntervalMs: 0 } as const;
      return (await backUpToBuffer({ ...options, onProgress: (p) => progress.push(p) })).file;
    }

    describe("built-in dump and restore through the encrypted pipeline", () => {
      let file: Buffer;
      const dumpProgress: Progress[] = [];
      const restoreProgress: Progress[] = [];
      let restoredDb: string;
      let original: CollectionSnapshot[];
      let restored: CollectionSnapshot[];

      beforeAll(async () => {
        if (target.unavailable !== null) return;
        file = await backUp(source, dumpProgress);
        restoredDb = env.uniqueDatabase("restored");
        await restoreFromEncrypted({
          uri: env.uriFor(restoredDb),
          masterKey,
          input: Readable.from([file]),
          inputBytes: file.length,
          tools: { mode: "builtin" },
          progressIntervalMs: 0,
          onProgress: (p) => restoreProgress.push(p),
        });
        original = await snapshotDatabase(env.client.db(source));
        restored = await snapshotDatabase(env.client.db(restoredDb));
      });
      const byName = (snapshots: CollectionSnapshot[], name: string) => snapshots.find((c) => c.name === name);

      testOnTarget(target, [], "every collection, option, index and document comes back identical", () => {
        expect(original.map((c) => c.name)).toEqual(content.collections);
        expect(restored.map((c) => c.name)).toEqual(original.map((c) => c.name));
        for (const [i, collection] of restored.entries()) {
          const before = original[i]!;
          expect({ name: collection.name, type: collection.type, options: collection.options, idIndex: collection.idIndex }).toEqual({
            name: before.name,
            type: before.type,
            options: before.options,
            idIndex: before.idIndex,
          });
          expect(collection.indexes).toEqual(before.indexes);
          expect(collection.documents.length).toBe(before.documents.length);
          collection.documents.forEach((bytes, j) => {
            if (!bytes.equals(before.documents[j]!)) throw new Error(`${collection.name}: document ${j} differs after the round trip`);
          });
        }
      });

      testOnTarget(target, ["all-bson-types"], "documents only raw bytes can express (undefined, DBPointer, NaN payload, repeated field) survive", () => {
        const hex = (snapshot: CollectionSnapshot[]) => byName(snapshot, "raw-types")!.documents.map((b) => b.toString("hex"));
        expect(hex(restored)).toEqual(hex(original));
        expect(byName(restored, "raw-types")!.documents[0]!.includes(Buffer.from([0x06, ...Buffer.from("undefined"), 0]))).toBe(true);
      });

      testOnTarget(target, ["views"], "the view comes back as a view with its pipeline, reading its restored source", async () => {
        expect(byName(restored, "recent")).toMatchObject({ type: "view", options: byName(original, "recent")!.options });
        const through = (db: string) => env.client.db(db).collection("recent").countDocuments();
        expect(await through(restoredDb)).toBe(await through(source));
        expect(await through(restoredDb)).toBeGreaterThan(0);
      });

      testOnTarget(
        target,
        ["validators", "collations", "partial-and-ttl-indexes"],
        "a validator, collations, a TTL and a partial index come back as they were",
        () => {
          for (const name of ["validated", "collated", "indexed"]) expect(byName(restored, name)).toEqual(byName(original, name)!);
          const indexed = byName(restored, "indexed")!.indexes.map((index) => index.name);
          expect(indexed).toEqual(expect.arrayContaining(["ttl", "partial_score", "name_fr"]));
        },
      );

      testOnTarget(target, [], "the decrypted file is a mongodump archive holding every collection with its document count", async () => {
        const decrypt = createDecryptStream({ masterKey });
        Readable.from([file]).pipe(decrypt);
        const summary = await summarizeArchive(decrypt);
        const counts = Object.fromEntries(summary.namespaces.map((n) => [n.namespace.slice(source.length + 1), n.documentCount]));
        expect(counts).toEqual(content.counts);
        const views = summary.collections.filter((c) => c.type === "view").map((c) => c.collection);
        expect(views).toEqual(target.lacks.views ? [] : ["recent"]);
      });

      testOnTarget(target, [], "progress counts documents up to the total, names collections, and ends at 100%", () => {
        const last = dumpProgress.at(-1)!;
        expect(last.percentage).toBe(100);
        expect(last.current).toBe(last.total);
        expect(last.current).toBe(Object.values(content.counts).reduce((sum, n) => sum + n, 0));
        expect(new Set(dumpProgress.map((p) => p.collection))).toContain(`${source}.bulk`);
        for (const [i, p] of dumpProgress.entries()) if (i > 0) expect(p.current).toBeGreaterThanOrEqual(dumpProgress[i - 1]!.current);

        const end = restoreProgress.at(-1)!;
        expect(end).toMatchObject({ current: last.current, total: last.current, percentage: 100 });
        expect(restoreProgress.some((p) => p.percentage > 0 && p.percentage < 100)).toBe(true);
        // The whole file is verified first; its counts give the restore its real total from the start.
        const verifying = restoreProgress.filter((p) => p.collection === "Verifying backup…");
        expect(verifying[0]).toEqual({ current: 0, total: 0, percentage: 0, collection: "Verifying backup…" });
        const restoring = restoreProgress.slice(verifying.length);
        expect(restoreProgress.slice(0, verifying.length)).toEqual(verifying);
        expect(restoring.every((p) => p.total === last.current)).toBe(true);
        expect(restoring[0]!.percentage).toBeLessThan(50);
        expect(restoring.every((p) => p.collection === "" || p.collection.startsWith(`${restoredDb}.`))).toBe(true);
      });
    });

    testOnTarget(target, ["collations"], "an index with the simple collation in a collated collection keeps it, as mongorestore recreates it", async () => {
      const db = env.uniqueDatabase("collation_rule");
      await env.client.db(db).command({ create: "codes", collation: { locale: "en", strength: new Int32(2) } });
      // Created with the simple collation, so listed without one: "X" and "x" are distinct keys.
      await env.client
        .db(db)
        .collection("codes")
        .createIndex({ code: 1 }, { name: "code_unique", unique: true, collation: { locale: "simple" } });
      await env.client
        .db(db)
        .collection<AnyIdDocument>("codes")
        .insertMany([
          { _id: 1, code: "X" },
          { _id: 2, code: "x" },
        ]);
      const copy = env.uniqueDatabase("collation_rule_copy");
      const result = await restoreFromEncrypted({ uri: env.uriFor(copy), masterKey, input: [await backUp(db)], tools: { mode: "builtin" } });
      expect(result.collections[`${copy}.codes`]).toEqual({ restored: 2, failed: 0 });
      expect(await snapshotDatabase(env.client.db(copy))).toEqual(await snapshotDatabase(env.client.db(db)));
    });

    testOnTarget(target, [], "documents that break _id or a unique index fail the restore, naming the first, and replace nothing", async () => {
      const archive = writeRefusedArchive("src");
      const into = env.uniqueDatabase("dups");
      await env.client.db(into).collection<AnyIdDocument>("people").insertOne({ _id: "kept", email: "old@example.com" });
      const error = await restoreDatabase({ uri: env.uriFor(into), input: archive, tools: { mode: "builtin" } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DumpError);
      expect((error as DumpError).code).toBe("database-error");
      expect((error as DumpError).message).toMatch(/^MongoDB refused 2 document\(s\), so nothing was replaced \(first: .*\.people: E11000 duplicate key/);
      const ids = await env.client
        .db(into)
        .collection<AnyIdDocument>("people")
        .find()
        .map((d) => d._id)
        .toArray();
      expect(ids).toEqual(["kept"]);
      const names = (await env.client.db(into).listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name);
      expect(names).toEqual(["people"]);
    });

    // Two collections are read at once; without compression both can wait for the reader at the
    // same time, and the encrypt stream used to release only the last of them (the dump hung).
    testOnTarget(
      target,
      [],
      "without compression, several collections read two at a time are dumped whole",
      async () => {
        const database = env.uniqueDatabase("uncompressed");
        const padding = "p".repeat(1000);
        const names = ["a", "b", "c", "d"];
        for (const name of names) {
          const documents = Array.from({ length: 3000 }, (_, i) => ({ _id: i, padding }));
          await env.client.db(database).collection<AnyIdDocument>(name).insertMany(documents);
        }
        // A reader slower than the dump (a file, an upload), so that writers do wait.
        const backup = createBackupStream({ uri: env.uriFor(database), masterKey, tools: { mode: "builtin" }, compression: "none" });
        const chunks: Buffer[] = [];
        for await (const chunk of backup.stream) {
          chunks.push(chunk as Buffer);
          await Bun.sleep(2);
        }
        const [file, result] = [Buffer.concat(chunks), await backup.result];
        expect(result.collections).toEqual(Object.fromEntries(names.map((name) => [`${database}.${name}`, 3000])));
        const decrypted = createDecryptStream({ masterKey });
        decrypted.end(file);
        const summary = await summarizeArchive(decrypted);
        expect(summary.namespaces.map((ns) => [ns.collection, ns.documentCount]).sort()).toEqual(names.map((name) => [name, 3000]));
      },
      30_000,
    );

    testOnTarget(
      target,
      [],
      "a dump whose reader stopped reading still stops when cancelled",
      async () => {
        const database = env.uniqueDatabase("stalled");
        const padding = "p".repeat(1000);
        for (const name of ["a", "b"]) {
          const documents = Array.from({ length: 3000 }, (_, i) => ({ _id: i, padding }));
          await env.client.db(database).collection<AnyIdDocument>(name).insertMany(documents);
        }
        const controller = new AbortController();
        const backup = createBackupStream({ uri: env.uriFor(database), masterKey, tools: { mode: "builtin" }, compression: "none", signal: controller.signal });
        backup.stream.on("error", () => undefined);
        // Nobody reads: the dump fills the stream's buffer and waits for room that never comes.
        await waitUntil(() => backup.stream.readableLength >= backup.stream.readableHighWaterMark, { message: "the dump to fill the unread stream" });
        controller.abort();
        const error = await backup.result.catch((e: unknown) => e);
        expect(error).toBeInstanceOf(DumpError);
        expect((error as DumpError).code).toBe("aborted");
      },
      30_000,
    );

    testOnTarget(
      target,
      [],
      "a restore whose input stalls still stops when cancelled, before touching the database",
      async () => {
        const file = await backUp(source);
        const into = env.uniqueDatabase("stalled_restore");
        // A download or a pipe that delivers the first part of the file, then nothing, for good.
        let stalled = false;
        async function* stalling(): AsyncGenerator<Uint8Array> {
          yield file.subarray(0, Math.floor(file.length / 2));
          stalled = true;
          await new Promise(() => undefined);
        }
        const controller = new AbortController();
        const restoring = restoreFromEncrypted({ uri: env.uriFor(into), masterKey, input: stalling(), tools: { mode: "builtin" }, signal: controller.signal });
        await waitUntil(() => stalled, { message: "the restore to wait for more input" });
        controller.abort();
        const error = await restoring.catch((e: unknown) => e);
        expect(error).toBeInstanceOf(DumpError);
        expect((error as DumpError).code).toBe("aborted");
        expect(await env.client.db(into).listCollections().toArray()).toEqual([]);
      },
      30_000,
    );

    testOnTarget(target, [], "an aborted dump stops with DumpError aborted and closes the stream with it", async () => {
      const controller = new AbortController();
      const backup = createBackupStream({ uri: env.uriFor(source), masterKey, tools: { mode: "builtin" }, signal: controller.signal });
      let received = 0;
      const reading = (async () => {
        for await (const chunk of backup.stream) {
          received += (chunk as Buffer).length;
          controller.abort();
        }
      })();
      const error = await backup.result.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DumpError);
      expect((error as DumpError).code).toBe("aborted");
      await expect(reading).rejects.toBeDefined();
      expect(received).toBeGreaterThan(0);
    });
  });
}
