// Point-in-time restores from a base backup and the slices the real shipper shipped from the
// replica-set test server under a recorded workload: each recorded moment restores exactly
// (documents and indexes); a chain with a slice missing, truncated, bit-flipped, of another
// database or key, or out of order is refused naming the slice with the target untouched; and so
// is a time before the base's point or past the last slice.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createReadStream } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BSON } from "bson";
import type { MongoClient } from "mongodb";
import type { MongoTestServer } from "../../../../testkit/mongo-server/server.ts";
import { startReplicaSetWithClient, stopWithClient } from "../../../../testkit/mongo-server/replica-set/test-support.ts";
import type { OplogTime } from "../../../../protocol/oplog-position.ts";
import { decryptBuffer, encryptBuffer } from "../../archive/index.ts";
import { restoreFromEncrypted, VERIFYING_LABEL } from "../../dump/encrypted.ts";
import { pointInTimeReplay } from "../../dump/point-in-time-replay.ts";
import type { PointInTimeReplay } from "../../dump/types.ts";
import type { SliceFile } from "./index.ts";
import { type Moment, readSliceFiles, recordHistory, snapshotDatabase } from "./test-support/recorded-history.ts";

const KEY = Buffer.alloc(32, 7);
let rs: { server: MongoTestServer; client: MongoClient };
let dir: string;
let history: { base: string; moments: Moment[]; slices: string };
let slices: SliceFile[];

beforeAll(async () => {
  rs = await startReplicaSetWithClient();
  dir = await mkdtemp(join(tmpdir(), "dbvault-pitr-"));
  history = await recordHistory(rs.client, rs.server.uri, KEY, dir);
  slices = await readSliceFiles(history.slices);
}, 120_000);
afterAll(async () => {
  await stopWithClient(rs);
  await rm(dir, { recursive: true, force: true });
});

/** Collections the restores entered (staging began): what progress names besides the file check. */
const entered: string[] = [];

function restoreTo(database: string, until: OplogTime, files: SliceFile[] = slices, collections?: string[]) {
  return restoreWith(database, pointInTimeReplay({ files, keys: { masterKey: KEY }, until }), collections);
}

function restoreWith(database: string, replay: PointInTimeReplay, collections?: string[]) {
  return restoreFromEncrypted({
    ...(collections ? { collections } : {}),
    onProgress: (progress) => {
      if (progress.collection !== VERIFYING_LABEL) entered.push(progress.collection);
    },
    uri: rs.server.uri,
    masterKey: KEY,
    input: createReadStream(history.base),
    reopen: () => createReadStream(history.base),
    database,
    tools: { mode: "builtin" },
    pointInTime: replay,
  });
}

describe("a point-in-time restore", () => {
  test("gives each recorded moment exactly, documents and indexes", async () => {
    expect(history.moments.length).toBe(6);
    expect(slices.length).toBeGreaterThan(1);
    for (const [index, moment] of history.moments.entries()) {
      const target = `shop_at_${index}`;
      await restoreTo(target, moment.until);
      expect({ moment: moment.label, contents: await snapshotDatabase(rs.client, target) }).toEqual({ moment: moment.label, contents: moment.contents });
    }
  }, 120_000);
});

test("with chosen collections: only those, each as it was at the moment", async () => {
  const moment = history.moments[4]!;
  await restoreTo("shop_orders_only", moment.until, slices, ["orders"]);
  const restored = JSON.parse(await snapshotDatabase(rs.client, "shop_orders_only"));
  expect(Object.keys(restored)).toEqual(["orders"]);
  expect(restored.orders).toEqual(JSON.parse(moment.contents).orders);
}, 60_000);

describe("a chain that is not whole is refused, the target untouched", () => {
  const last = () => history.moments.at(-1)!.until;
  let victims = 0;
  async function expectRefused(files: SliceFile[], message: RegExp, until = last()) {
    await expectReplayRefused(pointInTimeReplay({ files, keys: { masterKey: KEY }, until }), message);
  }
  async function expectReplayRefused(replay: PointInTimeReplay, message: RegExp) {
    const target = `victim_${victims++}`;
    await rs.client
      .db(target)
      .collection("keep")
      .insertOne({ _id: "mine" } as never);
    const before = await snapshotDatabase(rs.client, target);
    const error = await restoreWith(target, replay).then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(error?.message).toMatch(message);
    expect(await snapshotDatabase(rs.client, target)).toBe(before);
    const leftovers = (await rs.client.db(target).listCollections().toArray()).map((entry) => entry.name);
    expect(leftovers).toEqual(["keep"]);
  }
  const middle = () => Math.floor(slices.length / 2);
  let tampered = 0;
  /** The chain with slice `index` replaced by a file holding `bytes` (named as the original). */
  const with_ = async (index: number, bytes: Uint8Array) => {
    const path = join(dir, `tampered-${tampered++}.enc.dbvault`);
    await writeFile(path, bytes);
    return slices.map((file, at) => (at === index ? { ...file, path } : file));
  };

  test("a slice missing", async () => {
    const gone = slices[middle()]!;
    await expectRefused(
      slices.filter((file) => file !== gone),
      new RegExp(`does not follow slice .*: slice ${Number.parseInt(gone.name.split("-")[1]!, 10)} of chain .* is missing, so nothing was replaced`),
    );
  }, 60_000);

  test("a slice truncated: refused before any collection is staged", async () => {
    const file = slices[middle()]!;
    entered.length = 0;
    const bytes = await readFile(file.path);
    await expectRefused(await with_(middle(), bytes.subarray(0, bytes.length - 7)), new RegExp(`slice ${file.name} cannot be opened: .*trunc`, "i"));
    expect(entered).toEqual([]);
  }, 60_000);

  test("a slice bit-flipped", async () => {
    const file = slices[middle()]!;
    const flipped = await readFile(file.path);
    flipped[flipped.length - 40]! ^= 0x04;
    await expectRefused(await with_(middle(), flipped), new RegExp(`slice ${file.name} cannot be opened`));
  }, 60_000);

  test("a slice of another database, and one sealed with another key", async () => {
    const file = slices[middle()]!;
    const { plaintext } = await decryptBuffer(await readFile(file.path), { masterKey: KEY });
    const preambleLength = plaintext.readInt32LE(0);
    const preamble = BSON.deserialize(plaintext.subarray(0, preambleLength));
    preamble.o.database = "other";
    const other = Buffer.concat([BSON.serialize(preamble), plaintext.subarray(preambleLength)]);
    await expectRefused(
      await with_(middle(), await encryptBuffer(other, { masterKey: KEY, payloadKind: "oplog-slice" })),
      new RegExp(`slice ${file.name} is of database other, not shop`),
    );
    const otherKey = await encryptBuffer(plaintext, { masterKey: Buffer.alloc(32, 9), payloadKind: "oplog-slice" });
    await expectRefused(await with_(middle(), otherKey), new RegExp(`slice ${file.name} was sealed with another key`));
  }, 60_000);

  test("slices out of order in the server's list, or not matching its checksum", async () => {
    const described = slices.map((file, sequence) => ({ ...file, expected: { chain: file.name.split("-")[0]!, sequence } }));
    const swapped = [...described];
    [swapped[1], swapped[2]] = [swapped[2]!, swapped[1]!];
    await expectRefused(
      swapped,
      new RegExp(`slice ${swapped[1]!.name} \\(sequence 2\\) does not follow slice ${swapped[0]!.name} \\(sequence 0\\): they are out of order`),
    );
    const checksummed = described.map((file, at) => (at === 1 ? { ...file, expected: { ...file.expected, sha256: "0".repeat(64) } } : file));
    await expectRefused(checksummed, new RegExp(`slice ${described[1]!.name} does not match its stored checksum`));
  }, 60_000);

  test("a time before the base backup's point, or past the last slice", async () => {
    const base = history.moments[0]!.until;
    await expectRefused(slices, /is before the base backup's consistent point/, { t: base.t - 60, i: 0 });
    await expectRefused(slices, /the slices end at .* before/, { t: last().t + 3600, i: 0 });
  }, 60_000);

  test("a slice changed after the check (a slice sealed again with one entry fewer) is not replayed", async () => {
    const index = middle();
    const copy = join(dir, "changed-later.enc.dbvault");
    await writeFile(copy, await readFile(slices[index]!.path));
    const files = slices.map((file, at) => (at === index ? { ...file, path: copy } : file));
    const replay = pointInTimeReplay({ files, keys: { masterKey: KEY }, until: last() });
    const swapped: PointInTimeReplay = {
      ...replay,
      entriesAfter: async (base, database) => {
        // Between the check and the replay: the file now holds another, validly sealed slice.
        await writeFile(copy, await withOneEntryFewer(await readFile(copy)));
        return replay.entriesAfter(base, database);
      },
    };
    await expectReplayRefused(swapped, new RegExp(`slice ${slices[index]!.name} changed after it was checked, so nothing was replaced`));
  }, 60_000);
});

test("with private copies, a slice changed after the check changes nothing, and the copies are removed", async () => {
  const index = Math.floor(slices.length / 2);
  const copy = join(dir, "user-dir-slice.enc.dbvault");
  await writeFile(copy, await readFile(slices[index]!.path));
  const files = slices.map((file, at) => (at === index ? { ...file, path: copy } : file));
  const tempDir = await mkdtemp(join(tmpdir(), "dbvault-pitr-copies-"));
  const moment = history.moments.at(-1)!;
  const replay = pointInTimeReplay({ files, keys: { masterKey: KEY }, until: moment.until, privateCopies: { tempDir } });
  const changing: PointInTimeReplay = {
    ...replay,
    entriesAfter: async (base, database) => {
      await writeFile(copy, await withOneEntryFewer(await readFile(copy)));
      return replay.entriesAfter(base, database);
    },
  };
  try {
    await restoreWith("shop_from_copies", changing);
    expect(await snapshotDatabase(rs.client, "shop_from_copies")).toEqual(moment.contents);
    const [copies] = await readdir(tempDir);
    expect((await stat(join(tempDir, copies!))).mode & 0o777).toBe(0o700);
    expect((await readdir(join(tempDir, copies!))).length).toBe(slices.length);
    await replay.remove();
    expect(await readdir(tempDir)).toEqual([]);
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
}, 60_000);

/** The slice sealed again with the same key, its last entry left out (and its preamble saying so). */
async function withOneEntryFewer(bytes: Uint8Array): Promise<Uint8Array> {
  const { plaintext } = await decryptBuffer(bytes, { masterKey: KEY });
  const documents: Buffer[] = [];
  for (let offset = 0; offset < plaintext.length; offset += plaintext.readInt32LE(offset)) {
    documents.push(plaintext.subarray(offset, offset + plaintext.readInt32LE(offset)));
  }
  const preamble = BSON.deserialize(documents[0]!);
  expect(documents.length).toBeGreaterThan(1);
  preamble.o.entries = documents.length - 2;
  const kept = [BSON.serialize(preamble), ...documents.slice(1, -1)];
  return encryptBuffer(Buffer.concat(kept), { masterKey: KEY, payloadKind: "oplog-slice" });
}
