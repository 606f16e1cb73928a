// The write load of the point-in-time benches (issue 25 §6): ~1 KB documents (generate-database.ts)
// inserted, updated and deleted in equal shares, so the collection stays the same size while the
// oplog grows. Writes go as one unordered bulk write per 100 ms tick (three commands: an ordered
// one would be a command per operation), paced to a target rate; a
// server that cannot take the rate makes the ticks late, and the achieved rate is what is counted.
// Documents are numbered by `_id` (the test server finds a document by `_id` without a scan), so
// what was acknowledged can be checked after a restore.
import type { AnyBulkWriteOperation, Document, MongoClient } from "mongodb";
import { createDocument } from "./generate-database.ts";

const TICK_MS = 100;

type Numbered = Document & { _id: number };
const numbered = (seq: number): Numbered => ({ ...createDocument(seq), _id: seq });

export type WorkloadCounts = {
  /** Operations acknowledged by the server (inserts + updates + deletes). */
  acknowledged: number;
  inserts: number;
  /** With `recordTicks`, each acknowledged tick: when (Date.now()), its last inserted `_id`, its operations. */
  ticks: { at: number; lastId: number; operations: number }[];
  /** The reason the writes stopped early (the server went away), if they did. */
  stoppedBy?: string;
};

/** Inserts `count` documents with `_id` 0…count-1 (the live window the workload starts from). */
export async function seedWindow(client: MongoClient, target: { database: string; collection: string }, count: number): Promise<void> {
  const collection = client.db(target.database).collection<Numbered>(target.collection);
  for (let from = 0; from < count; from += 1_000) {
    const batch = Array.from({ length: Math.min(1_000, count - from) }, (_, k) => numbered(from + k));
    await collection.insertMany(batch, { ordered: false });
  }
}

/**
 * Runs the mixed load on `database.collection` at `ratePerSecond` until `until()` is true or a
 * write fails; the collection must hold documents `_id` 0…windowSize-1 (seedWindow). Each tick
 * inserts the next `_id`, updates a random live one ($set, $inc) and deletes the oldest, a third
 * each. `recordTicks` keeps what each acknowledged tick wrote and when (for the RPO count).
 */
export async function runWorkload(
  client: MongoClient,
  target: { database: string; collection: string; windowSize: number },
  ratePerSecond: number,
  until: () => boolean,
  options: { recordTicks?: boolean; onTick?: (counts: WorkloadCounts) => void } = {},
): Promise<WorkloadCounts> {
  const collection = client.db(target.database).collection<Numbered>(target.collection);
  const counts: WorkloadCounts = { acknowledged: 0, inserts: 0, ticks: [] };
  let next = target.windowSize;
  let oldest = 0;
  const perTick = Math.max(3, Math.round((ratePerSecond * TICK_MS) / 1000));
  const started = performance.now();
  for (let tick = 0; !until(); tick++) {
    const operations: AnyBulkWriteOperation<Numbered>[] = [];
    const inserted: number[] = [];
    for (let k = 0; k < perTick; k++) {
      if (k % 3 === 0) {
        operations.push({ insertOne: { document: numbered(next) } });
        inserted.push(next++);
      } else if (k % 3 === 1) {
        const seq = oldest + 1 + Math.floor(Math.random() * Math.max(1, next - oldest - 2));
        operations.push({ updateOne: { filter: { _id: seq }, update: { $set: { status: `s${tick % 7}` }, $inc: { touched: 1 } } } });
      } else {
        operations.push({ deleteOne: { filter: { _id: oldest++ } } });
      }
    }
    try {
      await collection.bulkWrite(operations, { ordered: false });
    } catch (error) {
      counts.stoppedBy = (error as Error).message;
      break;
    }
    const at = Date.now();
    counts.acknowledged += operations.length;
    counts.inserts += inserted.length;
    if (options.recordTicks) counts.ticks.push({ at, lastId: inserted.at(-1)!, operations: operations.length });
    options.onTick?.(counts);
    // Paced: the next tick starts on its schedule, or at once when the server is behind it.
    const due = started + (tick + 1) * TICK_MS;
    const wait = due - performance.now();
    if (wait > 0) await Bun.sleep(wait);
  }
  return counts;
}
