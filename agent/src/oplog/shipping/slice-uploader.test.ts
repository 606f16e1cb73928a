// Slices waiting for the server wait on disk: the uploader holds their descriptions and reads
// each one's bytes from the spool as it sends it, so a server down for hours costs the daemon
// no memory (issue 25 §6), and a restart sends exactly what was spooled.
import { afterEach, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitUntil } from "../../../../testkit/wait-until.ts";
import { ShippingStore, type SpooledSlice } from "./shipping-store.ts";
import { createSliceUploader } from "./slice-uploader.ts";

let directory: string | undefined;
afterEach(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
});

const slice = (sequence: number): SpooledSlice => ({
  database: "shop",
  chain: "c".repeat(32),
  sequence,
  start: { t: 100 + sequence, i: 1 },
  end: { t: 101 + sequence, i: 1 },
  entries: 1,
  size: 4,
  sha256: "0".repeat(64),
  reason: sequence === 0 ? "started" : "continues",
});

/** Spools slice `sequence`, whose file is the four bytes 1, 2, 3, sequence. */
const spool = (store: ShippingStore, sequence: number) =>
  store.spool(slice(sequence), async (write) => {
    await write(new Uint8Array([1, 2, 3, sequence]));
    return slice(sequence);
  });

test("a backlog is held as descriptions and each slice's bytes are read from the spool as it is sent", async () => {
  directory = await mkdtemp(join(tmpdir(), "dbvault-uploader-"));
  const store = new ShippingStore(directory);
  await store.load();
  const waiting = [await spool(store, 0), await spool(store, 1)];
  expect(waiting.every((description) => !("bytes" in description))).toBe(true);

  // After a restart the spool is the backlog: descriptions again, no bytes in memory.
  const { pending } = await store.load();
  expect(pending.map((description) => ("bytes" in description ? "bytes" : description.sequence))).toEqual([0, 1]);

  const sent: number[][] = [];
  const abort = new AbortController();
  const uploader = createSliceUploader({
    store,
    upload: async (_, body) => void sent.push([...new Uint8Array(await body.arrayBuffer())]),
    signal: abort.signal,
    log: () => {},
  });
  for (const description of pending) uploader.enqueue(description);
  await waitUntil(() => uploader.backlog() === 0, { message: "the backlog sent" });
  await uploader.stop();
  expect(sent).toEqual([
    [1, 2, 3, 0],
    [1, 2, 3, 1],
  ]);
  expect((await store.load()).pending).toEqual([]);
});
