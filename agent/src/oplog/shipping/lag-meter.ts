// Shipping lag as the agent measures it: how far the newest majority-committed oplog entry it
// has read is ahead of what the server has stored of the database. Reported with each heartbeat
// (issue 25 §2): the server's own guess (now minus the newest slice's end) cannot tell an idle
// database from a stuck shipper.
import type { OplogTime } from "../../../../protocol/pitr.ts";

export type LagMeter = ReturnType<typeof createLagMeter>;

export function createLagMeter() {
  let newestRead: OplogTime | undefined;
  let shippedThrough: OplogTime | undefined;
  // Entries of the database read and not yet stored by the server (in the builder or the spool).
  let unshipped = 0;

  return {
    /** Shipping (re)starts: what waits is counted again from the spool and the oplog. */
    restart() {
      unshipped = 0;
      shippedThrough = undefined;
    },
    /** An oplog entry was read; `kept` when it belongs to the database (it waits to be shipped). */
    read(ts: OplogTime, kept: boolean) {
      // Nothing of the database waits: all before this entry is on the server.
      if (kept && unshipped === 0) shippedThrough = ts;
      if (kept) unshipped++;
      newestRead = ts;
    },
    /** Slices spooled by an earlier run, not yet acknowledged: their entries wait too. */
    waiting(slice: { entries: number; start: OplogTime }) {
      if (slice.entries > 0 && unshipped === 0) shippedThrough = slice.start;
      unshipped += slice.entries;
    },
    /** The server stored a slice: everything up to its end is shipped. */
    shipped(slice: { entries: number; end: OplogTime }) {
      unshipped = Math.max(0, unshipped - slice.entries);
      shippedThrough = slice.end;
    },
    /** Seconds between the newest entry read and what is shipped; 0 when nothing of the database waits. */
    seconds(): number {
      if (unshipped === 0 || !newestRead || !shippedThrough) return 0;
      return Math.max(0, newestRead.t - shippedThrough.t);
    },
  };
}
