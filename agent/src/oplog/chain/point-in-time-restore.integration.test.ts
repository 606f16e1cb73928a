// Point-in-time restores from a base backup and the slices the real shipper shipped from the
// replica-set test server under a recorded workload: each recorded moment restores exactly
// (documents and indexes); a chain with a slice missing, truncated, bit-flipped, of another
// database or key, or out of order is refused naming the slice with the target untouched; and so
// is a time before the base's point or past the last slice.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createReadStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BSON } from "bson";
import type { MongoClient } from "mongodb";
import type { MongoTestServer } from "../../../../testkit/mongo-server/server.ts";
import { startReplicaSetWithClient, stopWithClient } from "../../../../testkit/mongo-server/replica-set/test-support.ts";
import type { OplogTime } from "../../../../protocol/pitr.ts";
import { decryptBuffer, encryptBuffer } from "../../archive/index.ts";
import { restoreFromEncrypted, VERIFYING_LABEL } from "../../dump/encrypted.ts";
import { pointInTimeReplay } from "../../dump/point-in-time-replay.ts";
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
    pointInTime: pointInTimeReplay({ files, keys: { masterKey: KEY }, until }),
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
    const target = `victim_${victims++}`;
    await rs.client
      .db(target)
      .collection("keep")
      .insertOne({ _id: "mine" } as never);
    const before = await snapshotDatabase(rs.client, target);
    const error = await restoreTo(target, until, files).then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(error?.message).toMatch(message);
    expect(await snapshotDatabase(rs.client, target)).toBe(before);
    const leftovers = (await rs.client.db(target).listCollections().toArray()).map((entry) => entry.name);
    expect(leftovers).toEqual(["keep"]);
  }
  const middle = () => Math.floor(slices.length / 2);
  const with_ = (index: number, bytes: Uint8Array) => slices.map((file, at) => (at === index ? { ...file, bytes } : file));

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
    await expectRefused(with_(middle(), file.bytes.subarray(0, file.bytes.length - 7)), new RegExp(`slice ${file.name} cannot be opened: .*trunc`, "i"));
    expect(entered).toEqual([]);
  }, 60_000);

  test("a slice bit-flipped", async () => {
    const file = slices[middle()]!;
    const flipped = Buffer.from(file.bytes);
    flipped[flipped.length - 40]! ^= 0x04;
    await expectRefused(with_(middle(), flipped), new RegExp(`slice ${file.name} cannot be opened`));
  }, 60_000);

  test("a slice of another database, and one sealed with another key", async () => {
    const file = slices[middle()]!;
    const { plaintext } = await decryptBuffer(file.bytes, { masterKey: KEY });
    const preambleLength = plaintext.readInt32LE(0);
    const preamble = BSON.deserialize(plaintext.subarray(0, preambleLength));
    preamble.o.database = "other";
    const other = Buffer.concat([BSON.serialize(preamble), plaintext.subarray(preambleLength)]);
    await expectRefused(
      with_(middle(), await encryptBuffer(other, { masterKey: KEY, payloadKind: "oplog-slice" })),
      new RegExp(`slice ${file.name} is of database other, not shop`),
    );
    const otherKey = await encryptBuffer(plaintext, { masterKey: Buffer.alloc(32, 9), payloadKind: "oplog-slice" });
    await expectRefused(with_(middle(), otherKey), new RegExp(`slice ${file.name} was sealed with another key`));
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
});
