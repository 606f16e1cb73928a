// The moment a completed backup holds its database as (protocol BackupConsistency), turned into
// the backup's columns. The time is the oplog timestamp's seconds: the agent sends both, and a
// time that is not those seconds is refused rather than stored beside a timestamp it contradicts.
import type { BackupConsistency } from "@protocol/agent-protocol";
import type { backups } from "@db/schema";
import { badRequest } from "../../lib/errors";

type ConsistencyColumns = Pick<typeof backups.$inferInsert, "consistency" | "consistentAt" | "consistentAtT" | "consistentAtI">;

/** The columns for a reported consistency (all null when none was reported); throws a 400 AppError. */
export function consistencyColumns(consistency: BackupConsistency | undefined): ConsistencyColumns {
  if (consistency === undefined) return { consistency: null, consistentAt: null, consistentAtT: null, consistentAtI: null };
  if (consistency.kind === "standalone") return { consistency: "standalone", consistentAt: null, consistentAtT: null, consistentAtI: null };
  const { time, ts } = consistency.at;
  if (Date.parse(time) !== ts.t * 1000) {
    throw badRequest("consistency.at.time must be the time of consistency.at.ts (its seconds since the epoch, as an ISO 8601 time).");
  }
  return { consistency: "point-in-time", consistentAt: new Date(ts.t * 1000), consistentAtT: ts.t, consistentAtI: ts.i };
}
