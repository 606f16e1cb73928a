// Reading the shipping lag an agent reported (lag.ts stores it): fresh only while its heartbeats
// keep coming. Apart from lag.ts so that /metrics and the dashboard read it without the alerting.
import { HEARTBEAT_INTERVAL_MS } from "@protocol/agent-protocol";

export const PITR_LAG_ALERT_SECONDS = 5 * 60;

/** A database its agent cannot reach this long raises pitr.lag, without waiting for the lag to pass 5 minutes. */
export const PITR_UNREACHABLE_ALERT_SECONDS = 2 * 60;

/** A report older than this is stale (the agent stopped sending heartbeats): readers fall back to the newest slice. */
export const PITR_LAG_FRESH_MS = 3 * HEARTBEAT_INTERVAL_MS;

/** The reported lag when fresh, else undefined. */
export function freshPitrLag(row: { pitrLagSeconds: number | null; pitrLagReportedAt: Date | null }, now: Date): number | undefined {
  if (row.pitrLagSeconds === null || !row.pitrLagReportedAt) return undefined;
  return now.getTime() - row.pitrLagReportedAt.getTime() <= PITR_LAG_FRESH_MS ? row.pitrLagSeconds : undefined;
}

/** Since when the agent cannot reach the database, from a fresh report; else undefined. */
export function freshPitrUnreachableSince(
  row: { pitrLagSeconds: number | null; pitrLagReportedAt: Date | null; pitrUnreachableSince: Date | null },
  now: Date,
): Date | undefined {
  return freshPitrLag(row, now) === undefined ? undefined : (row.pitrUnreachableSince ?? undefined);
}
