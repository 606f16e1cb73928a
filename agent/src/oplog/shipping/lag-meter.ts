// Shipping lag as the agent measures it, reported with each heartbeat (issue 25 §2, issue 47 §4):
// the seconds since the newest moment through which every entry of the database is known to be on
// the server. What moves that moment is the shipper's own heartbeat to the database (a `hello`
// naming the member's newest majority-committed position, database-heartbeat.ts): each one that
// answers confirms "nothing newer than this existed then". Entries read but not stored yet add
// their age. A database that cannot be reached confirms nothing, so its lag grows with the clock
// instead of staying at 0, and `unreachableSince` says since when.
import { compareOplogTimes, type OplogTime } from "../../../../protocol/oplog-position.ts";

export type LagMeter = ReturnType<typeof createLagMeter>;

/** What the heartbeat to the server carries for one database. */
export type LagReport = { seconds: number; unreachableSeconds?: number };

const later = (a: OplogTime | undefined, b: OplogTime | undefined) => (!a ? b : !b ? a : compareOplogTimes(a, b) >= 0 ? a : b);

export function createLagMeter(now: () => number = Date.now) {
  const startedAt = now();
  let newestRead: OplogTime | undefined;
  let shippedThrough: OplogTime | undefined;
  // Entries of the database read and not yet stored by the server (in the builder or the spool).
  let unshipped = 0;
  // The newest position the database answered it holds, and when it answered (this clock).
  let confirmed: { newest: OplogTime; at: number } | undefined;
  let unreachableSince: number | undefined;

  /**
   * Seconds since the newest moment the server holds everything of: how far the newest position
   * known (confirmed or read) is ahead of what is shipped, plus the time since the database last
   * confirmed it. Never confirmed and unreachable (down since the start): the time since the start.
   */
  const seconds = (): number => {
    const current = now();
    const safe = unshipped > 0 ? shippedThrough : newestRead;
    const newest = later(confirmed?.newest, newestRead);
    const behind = safe && newest ? Math.max(0, newest.t - safe.t) : 0;
    const since = confirmed ? confirmed.at : unreachableSince !== undefined ? startedAt : current;
    return behind + Math.max(0, Math.floor((current - since) / 1000));
  };

  return {
    /** Shipping (re)starts from `position` (everything before it is spooled or on the server). */
    restart(position?: OplogTime) {
      unshipped = 0;
      shippedThrough = undefined;
      newestRead = later(newestRead, position);
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
    /** The database answered that its newest majority-committed entry is `newest`. */
    confirm(newest: OplogTime) {
      confirmed = { newest, at: now() };
      unreachableSince = undefined;
    },
    /** The database did not answer (the connection is cut, the server is down). */
    unreachable() {
      unreachableSince ??= now();
    },
    seconds,
    /** The figure the heartbeat carries, with how long the database has not answered. */
    report(): LagReport {
      if (unreachableSince === undefined) return { seconds: seconds() };
      return { seconds: seconds(), unreachableSeconds: Math.max(0, Math.floor((now() - unreachableSince) / 1000)) };
    },
  };
}
