// A slice goes to the spool as it is sealed, frame by frame, so its file is never whole in the
// daemon's memory (issue 25 §6: under 150 MB at 5,000 writes/s); and a seal that fails part way
// leaves nothing behind: no description, no half file, the position where it was.
import { afterEach, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BSON } from "bson";
import { decryptBuffer } from "../../archive/index.ts";
import { ShippingStore } from "./shipping-store.ts";
import { SliceBuilder } from "./slice-builder.ts";

let directory: string | undefined;
afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
});

const masterKey = new Uint8Array(randomBytes(32));
const place = { database: "shop", chain: "c".repeat(32), sequence: 0, start: { t: 100, i: 1 } };

test("a slice is written to the spool frame by frame as it is sealed, and reads back whole", async () => {
  directory = await mkdtemp(join(tmpdir(), "dbvault-spool-"));
  const store = new ShippingStore(directory);
  await store.load();
  const builder = new SliceBuilder(place);
  const entries = Array.from({ length: 4_000 }, (_, n) =>
    BSON.serialize({ op: "i", ns: "shop.orders", ts: new BSON.Timestamp({ t: 101 + n, i: 1 }), o: { _id: n, noise: randomBytes(1_000) } }),
  );
  for (const [n, raw] of entries.entries()) builder.add(raw, { t: 101 + n, i: 1 }, 1_000);

  const frames: number[] = [];
  const slice = await store.spool(builder.place, async (write) => ({
    ...(await builder.sealTo({ t: 5000, i: 1 }, { masterKey }, new Date(0), async (frame) => {
      frames.push(frame.byteLength);
      await write(frame);
    })),
    reason: "started",
  }));

  // ~4 MB of incompressible entries: many frames, none of them the whole file.
  expect(frames.length).toBeGreaterThan(2);
  expect(Math.max(...frames)).toBeLessThan(slice.size / 2);
  const file = new Uint8Array(await store.file(slice).arrayBuffer());
  expect(file.byteLength).toBe(slice.size);
  expect(createHash("sha256").update(file).digest("hex")).toBe(slice.sha256);
  const { plaintext } = await decryptBuffer(file, { masterKey });
  expect(plaintext.byteLength).toBeGreaterThan(entries.reduce((sum, raw) => sum + raw.byteLength, 0));
  expect((await store.load()).pending).toEqual([slice]);
});

test("a seal that fails part way leaves nothing spooled and the position where it was", async () => {
  directory = await mkdtemp(join(tmpdir(), "dbvault-spool-"));
  const store = new ShippingStore(directory);
  await store.load();
  await store.savePosition({ chain: place.chain, nextSequence: 0, end: place.start });

  const failing = store.spool(place, async (write) => {
    await write(new Uint8Array(1024));
    throw new Error("no space left on device");
  });
  await expect(failing).rejects.toThrow("no space left on device");

  expect(await readdir(directory)).toEqual(["state.json"]);
  expect(await store.load()).toEqual({ position: { chain: place.chain, nextSequence: 0, end: place.start }, pending: [] });
});
