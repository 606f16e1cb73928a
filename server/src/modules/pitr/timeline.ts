// A database's covered timeline from its slices: the ranges of oplog time shipped without a hole,
// and the gaps between them. Pure: the slices' bounds in, ranges and gaps out.
import type { SliceReason } from "@db/schema";

/** What the timeline reads of a slice: its bounds (seconds << 32 | increment) and its place. */
export type SliceBounds = {
  chain: string;
  sequence: number;
  startTs: bigint;
  endTs: bigint;
  entryCount: number;
  size: number;
  reason: SliceReason;
  rolloverFromTs: bigint | null;
};

/** Oplog time covered with no hole: (from, to], in one chain. */
export type CoveredRange = { chain: string; from: bigint; to: bigint; slices: number; entries: number; bytes: number };

/**
 * Oplog time not covered between two ranges. `rollover`: the oplog was overwritten past the last
 * position shipped; `restarted`: a chain started anew (the agent lost its state, or shipping was
 * turned off and on); `missing`: a slice of a chain never arrived.
 */
export type TimelineGap = { from: bigint; to: bigint; reason: "rollover" | "restarted" | "missing" };

/** Orders the slices by start and walks them: a slice starting where the range before ended extends it. */
export function buildTimeline(slices: SliceBounds[]): { ranges: CoveredRange[]; gaps: TimelineGap[] } {
  const ordered = [...slices].sort((a, b) => (a.startTs < b.startTs ? -1 : a.startTs > b.startTs ? 1 : a.sequence - b.sequence));
  const ranges: CoveredRange[] = [];
  const gaps: TimelineGap[] = [];
  for (const slice of ordered) {
    const current = ranges.at(-1);
    if (current && slice.chain === current.chain && slice.startTs === current.to) {
      current.to = slice.endTs;
      current.slices++;
      current.entries += slice.entryCount;
      current.bytes += slice.size;
      continue;
    }
    if (current && slice.endTs <= current.to) continue; // covered already (a chain restarted inside it)
    if (current && slice.startTs > current.to) {
      const reason = slice.reason === "rollover" ? "rollover" : slice.reason === "started" ? "restarted" : "missing";
      gaps.push({
        from: slice.reason === "rollover" && slice.rolloverFromTs !== null ? min(slice.rolloverFromTs, current.to) : current.to,
        to: slice.startTs,
        reason,
      });
    } else if (!current && slice.reason === "rollover" && slice.rolloverFromTs !== null) {
      gaps.push({ from: slice.rolloverFromTs, to: slice.startTs, reason: "rollover" });
    }
    ranges.push({ chain: slice.chain, from: slice.startTs, to: slice.endTs, slices: 1, entries: slice.entryCount, bytes: slice.size });
  }
  return { ranges, gaps };
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
