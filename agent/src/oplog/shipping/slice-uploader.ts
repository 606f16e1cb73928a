// Uploads spooled slices in order, one at a time, apart from the tail: a server that is down
// only delays them (they wait in the spool, on disk), it never stops the oplog being read. Only
// their descriptions wait in memory: each slice's file is read from the spool as it is sent, so
// a backlog (a server down for an hour) costs no memory (issue 25 §6).
import type { ShippingStore, SpooledSlice } from "./shipping-store.ts";

/** Sends one slice (its file is `body`) to the server; resolves once the server has stored it (or already had it). */
export type UploadSlice = (slice: SpooledSlice, body: Blob, signal: AbortSignal) => Promise<void>;

const RETRY_DELAYS_MS = [1_000, 2_000, 5_000, 10_000, 30_000];

export function createSliceUploader(options: {
  store: ShippingStore;
  upload: UploadSlice;
  signal: AbortSignal;
  log: (message: string, fields?: Record<string, unknown>) => void;
  /** Hears each slice the server stored (the lag meter). */
  onStored?: (slice: SpooledSlice) => void;
}) {
  const queue: SpooledSlice[] = [];
  let wake: (() => void) | undefined;
  let stopped = false;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const run = (async () => {
    let failures = 0;
    while (!stopped) {
      const slice = queue[0];
      if (!slice) {
        await pause(60_000);
        continue;
      }
      try {
        await options.upload(slice, options.store.file(slice), options.signal);
        await options.store.acknowledge(slice);
        queue.shift();
        options.onStored?.(slice);
        failures = 0;
      } catch (error) {
        if (stopped) break;
        const delay = RETRY_DELAYS_MS[Math.min(failures++, RETRY_DELAYS_MS.length - 1)]!;
        options.log("could not upload an oplog slice; it waits on disk and is sent again", {
          database: slice.database,
          sequence: slice.sequence,
          retryInMs: delay,
          error: (error as Error).message,
        });
        await pause(delay);
      }
    }
  })();

  return {
    enqueue(slice: SpooledSlice) {
      queue.push(slice);
      wake?.();
    },
    /** Slices sealed and not yet acknowledged. */
    backlog: () => queue.length,
    async stop() {
      stopped = true;
      wake?.();
      await run;
    },
  };
}
