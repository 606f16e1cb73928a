import { formatDateTimeToSecond } from "../../../lib/format-date";

type Position = { at: string };
type Timeline = {
  ranges: { from: Position; to: Position }[];
  gaps: { from: Position; to: Position; reason: "rollover" | "restarted" | "missing" }[];
  lagSeconds: number | null;
};

/** Past this the server alerts pitr.lag: the line turns into a warning too. */
export const PITR_LAG_WARNING_SECONDS = 5 * 60;

const GAP_REASONS = { rollover: "the oplog rolled over", restarted: "shipping restarted", missing: "a slice is missing" } as const;

/**
 * The dashboard's line for a database with point-in-time recovery on: since when it can be
 * restored to any second, and how far behind now that is (the agent's reported lag; without a
 * recent report, the end of the newest slice), or the lag or gap that needs the user's attention.
 */
export function describePitrCoverage(timeline: Timeline, nowMs: number): { text: string; warning: string | null } {
  const newest = timeline.ranges.at(-1);
  if (!newest) return { text: "Point-in-time: waiting for the agent's first shipped oplog slice", warning: null };
  const behind = timeline.lagSeconds ?? Math.max(0, Math.round((nowMs - Date.parse(newest.to.at)) / 1000));
  const text = `Point-in-time: covered from ${formatDateTimeToSecond(newest.from.at)} to ${behind} s ago`;
  if (behind > PITR_LAG_WARNING_SECONDS) {
    return {
      text,
      warning: `Shipping is ${Math.floor(behind / 60)} min behind: the latest writes cannot be restored to the second yet. Check the agent's log and its connection to DBVault.`,
    };
  }
  const gap = timeline.gaps.at(-1);
  if (gap) {
    return {
      text,
      warning: `Gap from ${formatDateTimeToSecond(gap.from.at)} to ${formatDateTimeToSecond(gap.to.at)} (${GAP_REASONS[gap.reason]}): times inside it cannot be restored.`,
    };
  }
  return { text, warning: null };
}
