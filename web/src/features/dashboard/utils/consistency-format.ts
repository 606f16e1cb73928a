import { formatDateTimeToSecond } from "../../../lib/format-date";

type ConsistencyFields = {
  consistency: "point-in-time" | "standalone" | null;
  consistentAt: { time: string; ts: { t: number; i: number } } | null;
};

/**
 * The line under a backup's timestamp saying what moment it holds: the time (to the second) its
 * replica set's oplog brought it to, with the oplog timestamp on hover, or that a standalone
 * server's backup is no single moment. Null when the agent did not report it (older agents).
 */
export function describeConsistency(backup: ConsistencyFields): { label: string; title: string } | null {
  if (backup.consistency === "standalone") {
    return {
      label: "not point-in-time consistent (standalone server)",
      title: "A standalone server keeps no oplog: collections were read one after another, not as of one moment.",
    };
  }
  if (backup.consistency === "point-in-time" && backup.consistentAt) {
    const { time, ts } = backup.consistentAt;
    // The oplog's newest entry when the dump ended: the last write, which may well be older than
    // the backup itself ("at 4:08:50" for a backup taken at 4:10 read as a mistake).
    return { label: `Consistent as of the last write at ${formatDateTimeToSecond(time)}`, title: `As of oplog timestamp {t: ${ts.t}, i: ${ts.i}}` };
  }
  return null;
}
