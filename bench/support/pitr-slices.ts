// Writes a chain of sealed oplog slices of about `bytes` in all (16 MiB slices, as the shipper
// seals them at most) for the point-in-time chain benches: 1 KB insert entries of random,
// incompressible content, so the files are as large as the entries.
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Binary, BSON, Timestamp } from "bson";
import { SliceBuilder } from "../../agent/src/oplog/shipping/slice-builder.ts";

export const BENCH_DATABASE = "bench";
const SLICE_BYTES = 16 * 1024 * 1024;

/** Writes the slices into `directory`; answers the first slice's start (the base's point) and the last's end. */
export async function writeSliceChain(
  directory: string,
  bytes: number,
  masterKey: Uint8Array,
): Promise<{ start: { t: number; i: number }; end: { t: number; i: number } }> {
  const start = { t: 1_700_000_000, i: 1 };
  let position = start;
  let written = 0;
  let n = 0;
  for (let sequence = 0; written < bytes; sequence++) {
    const builder = new SliceBuilder({ database: BENCH_DATABASE, chain: "bench", sequence, start: position });
    while (builder.entryBytes < SLICE_BYTES && written + builder.entryBytes < bytes) {
      const ts = { t: position.t + (n % 100 === 99 ? 1 : 0), i: n % 100 === 99 ? 1 : position.i + 1 };
      n++;
      const entry = BSON.serialize({
        op: "i",
        ns: `${BENCH_DATABASE}.items`,
        ts: new Timestamp(ts),
        t: 1,
        v: 2,
        wall: new Date(ts.t * 1000),
        o: { _id: n, payload: new Binary(randomBytes(1000)) },
      });
      builder.add(entry, ts, Date.now());
      position = ts;
    }
    written += builder.entryBytes;
    const sealed = await builder.seal(position, { masterKey }, new Date());
    await writeFile(join(directory, `bench-${String(sequence).padStart(5, "0")}.enc.dbvault`), sealed.bytes);
  }
  return { start, end: position };
}
