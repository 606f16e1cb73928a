// Continuous oplog shipping for one database: tails local.oplog.rs from the last position sealed,
// keeps the database's entries, seals a slice every SLICE_MAX_AGE_MS or SLICE_MAX_ENTRY_BYTES
// (whichever first), spools it and hands it to the uploader. A lost connection or a step-down
// seals what was gathered (the source may never come back) and reopens the tail where it was read
// to; a restart resumes from the spool and state file (shipping-store.ts). Rollover (the position
// is gone from the oplog) is reported on the new chain's first slice.
import { randomBytes } from "node:crypto";
import type { MongoClient } from "mongodb";
import { collectGarbageNow, createMemoryPacer } from "../../archive/index.ts";
import { compareOplogTimes, type OplogTime } from "../../../../protocol/oplog-position.ts";
import { SLICE_MAX_AGE_MS, SLICE_MAX_ENTRY_BYTES } from "../../../../protocol/pitr.ts";
import { createEntryFilter } from "./entry-filter.ts";
import { startDatabaseHeartbeat } from "./database-heartbeat.ts";
import type { LagMeter } from "./lag-meter.ts";
import { readOplogBounds } from "../read-oplog.ts";
import { openOplogTail } from "./oplog-cursor.ts";
import { SliceBuilder } from "./slice-builder.ts";
import type { ChainPosition, ShippingStore, SpooledSlice } from "./shipping-store.ts";
import { createSliceUploader, type UploadSlice } from "./slice-uploader.ts";

export interface ShipOplogOptions {
  client: MongoClient;
  /** The MongoDB database whose entries are shipped. */
  database: string;
  /** What slices are sealed with: the master key, or a write-only agent's recipient. */
  sealing: { masterKey: Uint8Array } | { recipient: Uint8Array };
  store: ShippingStore;
  upload: UploadSlice;
  signal: AbortSignal;
  log: (message: string, fields?: Record<string, unknown>) => void;
  /** Seal once the oldest entry held is this old; SLICE_MAX_AGE_MS unless told otherwise. */
  maxAgeMs?: number;
  /** Seal before the entries would pass this many bytes; SLICE_MAX_ENTRY_BYTES unless told otherwise. */
  maxEntryBytes?: number;
  /** An idle database still seals an empty slice this often, so its covered time moves on; IDLE_SEAL_MS unless told otherwise. */
  idleSealMs?: number;
  /** Wait before reopening the tail after an error. */
  retryDelayMs?: number;
  /** Hears each slice as it is spooled (tests, lag). */
  onSealed?: (slice: SpooledSlice) => void;
  /** Measures the shipping lag the heartbeat reports; with it, the database is asked how far its oplog goes. */
  lag?: LagMeter;
  /** How often the database is asked (database-heartbeat.ts); DATABASE_HEARTBEAT_MS unless told otherwise. */
  databaseHeartbeatMs?: number;
  now?: () => number;
}

/** Raised when the oplog no longer holds the position to resume from. */
class RolloverError extends Error {}

const CAPPED_POSITION_LOST = 136;

/**
 * An idle database's empty slice is sealed this often, so its restorable end keeps up with the
 * present: with mongod's periodic no-op every 10 s moving the oplog, "now" is restorable within
 * 40 s (and within a minute once uploaded) however long nothing is written.
 */
export const IDLE_SEAL_MS = 30_000;

/** Ships until `signal` aborts; resolves then (what was gathered but not sealed is read again next time). */
export async function shipOplog(options: ShipOplogOptions): Promise<void> {
  const { client, store, signal, log } = options;
  const { position: saved, pending } = await store.load();
  const uploader = createSliceUploader({ store, upload: options.upload, signal, log, onStored: (slice) => options.lag?.shipped(slice) });
  options.lag?.restart(saved?.end);
  for (const slice of pending) {
    options.lag?.waiting(slice);
    uploader.enqueue(slice);
  }
  const heartbeat = options.lag ? startDatabaseHeartbeat({ client, lag: options.lag, log, intervalMs: options.databaseHeartbeatMs }) : undefined;
  try {
    await tailAndShip(options, uploader, saved);
  } finally {
    heartbeat?.stop();
    await uploader.stop();
  }
}

/** The tail loop: reads, seals and hands slices to the uploader until `signal` aborts. */
async function tailAndShip(options: ShipOplogOptions, uploader: ReturnType<typeof createSliceUploader>, saved: ChainPosition | undefined): Promise<void> {
  const { client, database, store, signal, log } = options;
  const now = options.now ?? Date.now;
  const maxAgeMs = options.maxAgeMs ?? SLICE_MAX_AGE_MS;
  const maxEntryBytes = options.maxEntryBytes ?? SLICE_MAX_ENTRY_BYTES;
  const idleSealMs = options.idleSealMs ?? IDLE_SEAL_MS;
  let position = saved ?? (await startChain(options, "started"));
  const keep = createEntryFilter(database);
  // Every entry read (kept or not) leaves its reply bytes and its parsed fields to the collector,
  // which lets them pile up far past the daemon's 150 MB (bench/pitr-shipping.ts: 204-236 MB).
  // Half the default margin, looked at twice as often: at 5,000 writes/s the shipper's peak
  // between backups went from 147-155 MB to 140 MB for a collection about every second.
  const pacer = createMemoryPacer(512 * 1024, 4 * 1024 * 1024);
  let builder = new SliceBuilder({ database, chain: position.chain, sequence: position.nextSequence, start: position.end });
  let readThrough = position.end;
  let lastSealAt = now();

  const seal = async () => {
    const first = position.nextSequence === 0;
    const slice = await store.spool(builder.place, async (write) => ({
      ...(await builder.sealTo(readThrough, options.sealing, new Date(now()), write)),
      reason: first ? (position.reason ?? "started") : "continues",
      ...(first && position.rolloverFrom ? { rolloverFrom: position.rolloverFrom } : {}),
    }));
    position = { chain: slice.chain, nextSequence: slice.sequence + 1, end: slice.end };
    builder = new SliceBuilder({ database, chain: position.chain, sequence: position.nextSequence, start: position.end });
    lastSealAt = now();
    options.onSealed?.(slice);
    uploader.enqueue(slice);
    // The slice's entries and file are all garbage now: collected here (~20 ms a slice), they
    // do not stand beside the next slice's until the pacer's margin is passed.
    collectGarbageNow();
  };

  while (!signal.aborted) {
    let tail: ReturnType<typeof openOplogTail> | undefined;
    try {
      await assertStillInOplog(client, readThrough);
      tail = openOplogTail(client, readThrough);
      const stop = () => void tail?.close();
      signal.addEventListener("abort", stop, { once: true });
      try {
        while (!signal.aborted) {
          const entry = await tail.next();
          if (entry) {
            pacer.note(entry.raw.byteLength);
            const kept = keep(entry.raw, entry);
            options.lag?.read(entry.ts, kept !== undefined);
            if (kept) {
              if (builder.entryCount > 0 && builder.entryBytes + kept.byteLength > maxEntryBytes) await seal();
              builder.add(kept, entry.ts, now());
            }
            readThrough = entry.ts;
          }
          const age = builder.startedAt === undefined ? 0 : now() - builder.startedAt;
          const moved = compareOplogTimes(readThrough, builder.place.start) > 0;
          // A chain's first slice goes as soon as the oplog moves: it is what tells the server of
          // the new chain (a rollover's gap, the new base backup), which must not wait for a seal.
          const opensChain = position.nextSequence === 0 && moved;
          if (opensChain || (builder.entryCount > 0 && age >= maxAgeMs) || (moved && builder.entryCount === 0 && now() - lastSealAt >= idleSealMs))
            await seal();
        }
      } finally {
        signal.removeEventListener("abort", stop);
      }
    } catch (error) {
      if (signal.aborted) break;
      if (error instanceof RolloverError || (error as { code?: unknown }).code === CAPPED_POSITION_LOST) {
        // What was read before the loss is whole: seal it, then report the gap after it.
        if (builder.entryCount > 0) await seal();
        log("the oplog rolled over past the last position shipped: starting a new chain (a gap in point-in-time recovery until the next full backup)", {
          database,
          lost: readThrough,
        });
        position = await startChain(options, "rollover", readThrough);
        builder = new SliceBuilder({ database, chain: position.chain, sequence: 0, start: position.end });
        readThrough = position.end;
        continue;
      }
      log("oplog tail interrupted; reopening it where it was read to", { database, error: (error as Error).message });
      // What was read is whole up to where the tail stopped: ship it now rather than hold it
      // until the tail is back, which for a lost server may be never (the recovery point).
      if (builder.entryCount > 0) await seal();
      await sleep(options.retryDelayMs ?? 1_000, signal);
    } finally {
      await tail?.close();
    }
  }
}

/** Starts a chain after the oplog's newest entry and saves it, so a restart before its first slice keeps it. */
async function startChain(options: ShipOplogOptions, reason: "started" | "rollover", rolloverFrom?: OplogTime): Promise<ChainPosition> {
  const bounds = await readOplogBounds(options.client);
  if (!bounds) throw new Error("the server has no oplog (local.oplog.rs): point-in-time recovery needs a replica set member");
  const position: ChainPosition = {
    chain: randomBytes(16).toString("hex"),
    nextSequence: 0,
    end: bounds.newest,
    reason,
    ...(rolloverFrom ? { rolloverFrom } : {}),
  };
  await options.store.savePosition(position);
  return position;
}

/** Throws RolloverError when entries after `position` may already have been trimmed from the oplog. */
async function assertStillInOplog(client: MongoClient, position: OplogTime): Promise<void> {
  const bounds = await readOplogBounds(client);
  if (bounds && compareOplogTimes(bounds.oldest, position) > 0) throw new RolloverError();
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
