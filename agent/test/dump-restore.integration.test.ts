// The library path the daemon uses: dump → compress → encrypt → decrypt → restore into a fresh
// database must reproduce every collection exactly: documents byte for byte, options, indexes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import { generateMasterKey } from "../src/archive/index.ts";
import { BSON, type Document, Int32 } from "mongodb";
import { createBackupStream, DumpError, type Progress, restoreDatabase, restoreFromEncrypted } from "../src/dump/index.ts";
import { summarizeArchive, writeMongodumpArchive } from "../src/dump/mongodump-archive/index.ts";
import { createDecryptStream } from "../src/archive/index.ts";
import { AWKWARD_COLLECTIONS, type AnyIdDocument, buildAwkwardDatabase } from "./support/awkward-database.ts";
import { snapshotDatabase } from "./support/database-snapshot.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./support/test-env.ts";

let env: AgentTestEnv;
let source: string;
const masterKey = generateMasterKey();

beforeAll(async () => {
  env = await openAgentTestEnv();
  source = env.uniqueDatabase("awkward");
  await buildAwkwardDatabase(env.client.db(source));
});
afterAll(() => env.close());

async function backUp(database: string, progress: Progress[] = []): Promise<Buffer> {
  const backup = createBackupStream({
    uri: env.uriFor(database),
    masterKey,
    tools: { mode: "builtin" },
    progressIntervalMs: 0,
    onProgress: (p) => progress.push(p),
  });
  const chunks: Buffer[] = [];
  for await (const chunk of backup.stream) chunks.push(chunk as Buffer);
  await backup.result;
  return Buffer.concat(chunks);
}

describe("built-in dump and restore through the encrypted pipeline", () => {
  let file: Buffer;
  const dumpProgress: Progress[] = [];
  const restoreProgress: Progress[] = [];
  let target: string;

  beforeAll(async () => {
    file = await backUp(source, dumpProgress);
    target = env.uniqueDatabase("restored");
    await restoreFromEncrypted({
      uri: env.uriFor(target),
      masterKey,
      input: Readable.from([file]),
      inputBytes: file.length,
      tools: { mode: "builtin" },
      progressIntervalMs: 0,
      onProgress: (p) => restoreProgress.push(p),
    });
  });

  test("every collection, view, option, index and document comes back identical", async () => {
    const original = await snapshotDatabase(env.client.db(source));
    const restored = await snapshotDatabase(env.client.db(target));
    expect(original.map((c) => c.name).sort()).toEqual([...AWKWARD_COLLECTIONS, "large"].sort());
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

  test("documents only raw bytes can express (undefined, DBPointer, NaN payload, repeated field) survive", async () => {
    const restored = (await env.client.db(target).collection("raw-types").find({}, { raw: true }).toArray()) as unknown as Buffer[];
    const original = (await env.client.db(source).collection("raw-types").find({}, { raw: true }).toArray()) as unknown as Buffer[];
    expect(restored.map((b) => Buffer.from(b).toString("hex"))).toEqual(original.map((b) => Buffer.from(b).toString("hex")));
    expect(Buffer.from(restored[0]!).includes(Buffer.from([0x06, ...Buffer.from("undefined"), 0]))).toBe(true);
  });

  test("the decrypted file is a mongodump archive holding every collection with its document count", async () => {
    const decrypt = createDecryptStream({ masterKey });
    Readable.from([file]).pipe(decrypt);
    const summary = await summarizeArchive(decrypt);
    const counts = Object.fromEntries(summary.namespaces.map((n) => [n.namespace.slice(source.length + 1), n.documentCount]));
    expect(counts).toMatchObject({ bulk: 3500, empty: 0, recent: 0, large: 2, "ünïcødé 名前": 1, "with.dots.in.name": 1, types: 4 });
    const views = summary.collections.filter((c) => c.type === "view").map((c) => c.collection);
    expect(views).toEqual(["recent"]);
  });

  test("progress counts documents up to the total, names collections, and ends at 100%", () => {
    const last = dumpProgress.at(-1)!;
    expect(last.percentage).toBe(100);
    expect(last.current).toBe(last.total);
    expect(last.current).toBeGreaterThan(3600);
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
    expect(restoring.every((p) => p.collection === "" || p.collection.startsWith(`${target}.`))).toBe(true);
  });
});

test("documents that break _id or a unique index fail the restore, naming the first, and replace nothing", async () => {
  const doc = (value: Document) => BSON.serialize(value);
  const archive = writeMongodumpArchive(
    {
      header: { serverVersion: "7.0.0" },
      collections: [
        {
          db: "src",
          collection: "people",
          type: "collection",
          indexes: [
            { v: new Int32(2), key: { _id: new Int32(1) }, name: "_id_" },
            { v: new Int32(2), key: { email: new Int32(1) }, name: "email_1", unique: true },
          ],
        },
      ],
    },
    [
      { kind: "document", namespace: "src.people", bytes: doc({ _id: 1, email: "a@example.com" }) },
      { kind: "document", namespace: "src.people", bytes: doc({ _id: 1, email: "c@example.com" }) },
      { kind: "document", namespace: "src.people", bytes: doc({ _id: 2, email: "a@example.com" }) },
      { kind: "document", namespace: "src.people", bytes: doc({ _id: 3, email: "b@example.com" }) },
    ],
  );
  const target = env.uniqueDatabase("dups");
  await env.client.db(target).collection<AnyIdDocument>("people").insertOne({ _id: "kept", email: "old@example.com" });
  const error = await restoreDatabase({ uri: env.uriFor(target), input: archive, tools: { mode: "builtin" } }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(DumpError);
  expect((error as DumpError).code).toBe("database-error");
  expect((error as DumpError).message).toMatch(/^MongoDB refused 2 document\(s\), so nothing was replaced \(first: .*\.people: E11000 duplicate key/);
  const ids = await env.client.db(target).collection<AnyIdDocument>("people").find().map((d) => d._id).toArray();
  expect(ids).toEqual(["kept"]);
  const names = (await env.client.db(target).listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name);
  expect(names).toEqual(["people"]);
});

test("an aborted dump stops with DumpError aborted and closes the stream with it", async () => {
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
