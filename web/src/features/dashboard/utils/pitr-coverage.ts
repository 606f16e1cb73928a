import { formatDateTimeToSecond } from "../../../lib/format-date";

type Position = { at: string };
type Window = { from: Position; to: Position };
type Timeline = {
  ranges: Window[];
  gaps: (Window & { reason: "rollover" | "restarted" | "missing" })[];
  /** What a restore to a moment can reach (the server's windows, the same the wizard offers). */
  restorable: Window[];
  lagSeconds: number | null;
  /** Since when the agent cannot reach the database itself; null while it answers. */
  unreachableSince: string | null;
};

/** Past this the server alerts pitr.lag: the line turns into a warning too. */
export const PITR_LAG_WARNING_SECONDS = 5 * 60;

const GAP_REASONS = { rollover: "the oplog rolled over", restarted: "shipping restarted", missing: "a slice is missing" } as const;

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * The dashboard's line for a database with point-in-time recovery on: the seconds it can be
 * restored to, as the wizard offers them (from the newest window's first second to the second
 * before its end: an ISO time means its whole second), how long ago that last second is, and what
 * needs the user's attention: a database the agent cannot reach, a lag, a gap.
 */
export function describePitrCoverage(timeline: Timeline, nowMs: number): { text: string; warning: string | null } {
  const window = timeline.restorable.findLast((w) => seconds(w.to.at) - 1 >= seconds(w.from.at));
  if (!window) {
    const text =
      timeline.ranges.length === 0
        ? "Point-in-time: waiting for the agent's first shipped oplog slice"
        : "Point-in-time: oplog shipped, waiting for a completed backup to restore from";
    return { text, warning: unreachableWarning(timeline) };
  }
  const last = seconds(window.to.at) - 1;
  const ago = Math.max(0, Math.floor(nowMs / 1000) - last);
  const text = `Point-in-time: covered from ${formatDateTimeToSecond(window.from.at)} to ${ago} s ago`;
  const unreachable = unreachableWarning(timeline);
  if (unreachable) return { text, warning: unreachable };
  const behind = Math.max(ago, timeline.lagSeconds ?? 0);
  if (behind > PITR_LAG_WARNING_SECONDS) {
    return {
      text,
      warning: `Shipping is ${Math.floor(behind / 60)} min behind: the latest writes cannot be restored to the second yet. Check the agent's log and its connection to DBVault.`,
    };
  }
  const gap = timeline.gaps.at(-1);
  if (gap) {
    // After a rollover the new chain is restorable only from its first base backup, not from its start.
    const next = timeline.restorable.find((w) => seconds(w.to.at) > seconds(gap.to.at));
    const until = next && seconds(next.from.at) > seconds(gap.to.at) ? next.from.at : gap.to.at;
    return {
      text,
      warning: `Gap from ${formatDateTimeToSecond(gap.from.at)} to ${formatDateTimeToSecond(until)} (${GAP_REASONS[gap.reason]}): times inside it cannot be restored.`,
    };
  }
  return { text, warning: null };
}

function unreachableWarning(timeline: Timeline): string | null {
  if (!timeline.unreachableSince) return null;
  return `The agent can't reach the database since ${formatDateTimeToSecond(timeline.unreachableSince)}: writes made since then cannot be restored until it reaches it again. Check that the database is running and reachable from the agent's machine.`;
}
