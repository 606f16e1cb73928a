// The restore wizard's timeline of a database, laid out: covered ranges, gaps and base backups
// as shares of one bar, and whether a chosen second is one the picker accepts. Pure.

export type Position = { ts: string; at: string };
export type Timeline = { ranges: { from: Position; to: Position }[]; gaps: { from: Position; to: Position; reason: string }[] };

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** A datetime-local value (local time, to the second) as the ISO time the server takes; null when incomplete. */
export function momentFromInput(value: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
  const date = new Date(y!, mo! - 1, d!, h!, mi!, Number.isNaN(s) ? 0 : (s ?? 0));
  return Number.isNaN(date.getTime()) ? null : date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** An ISO time as a datetime-local value in local time, to the second. */
export function inputFromMoment(iso: string): string {
  const date = new Date(iso);
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/**
 * Whether every write of that second is shipped and a base backup precedes it: the second lies
 * in a covered range after a base consistent inside it, and before the range's last second (the
 * rest of which may not be shipped yet). The server decides; this keeps the picker honest.
 */
export function isCovered(timeline: Timeline, baseTimes: string[], moment: string): boolean {
  const at = seconds(moment);
  return timeline.ranges.some((range) => {
    const from = seconds(range.from.at);
    const to = seconds(range.to.at);
    return at < to && baseTimes.some((base) => seconds(base) >= from && seconds(base) < to && seconds(base) <= at);
  });
}

/** The earliest and latest seconds the picker offers: from the oldest base in a range to the last covered second. */
export function pickerBounds(timeline: Timeline, baseTimes: string[]): { min: string; max: string } | null {
  const covered = timeline.ranges.flatMap((range) => {
    const from = seconds(range.from.at);
    const to = seconds(range.to.at);
    const bases = baseTimes.map(seconds).filter((base) => base >= from && base < to);
    return bases.length > 0 ? [{ from: Math.min(...bases), to: to - 1 }] : [];
  });
  if (covered.length === 0) return null;
  const iso = (value: number) => new Date(value * 1000).toISOString();
  return { min: iso(Math.min(...covered.map((c) => c.from))), max: iso(Math.max(...covered.map((c) => c.to))) };
}

export type BarSegment = { kind: "covered" | "gap"; left: number; width: number; from: string; to: string };

/** The ranges, gaps and base marks as percentages of a bar from the earliest to the latest time shown. */
export function layoutTimeline(timeline: Timeline, baseTimes: string[]): { segments: BarSegment[]; marks: { left: number; at: string }[] } {
  const times = [...timeline.ranges.flatMap((r) => [r.from.at, r.to.at]), ...baseTimes].map(seconds);
  if (times.length === 0) return { segments: [], marks: [] };
  const start = Math.min(...times);
  const span = Math.max(1, Math.max(...times) - start);
  const share = (iso: string) => ((seconds(iso) - start) / span) * 100;
  const segment = (kind: BarSegment["kind"], from: Position, to: Position): BarSegment => ({
    kind,
    left: share(from.at),
    width: Math.max(0.5, share(to.at) - share(from.at)),
    from: from.at,
    to: to.at,
  });
  return {
    segments: [...timeline.ranges.map((r) => segment("covered", r.from, r.to)), ...timeline.gaps.map((g) => segment("gap", g.from, g.to))],
    marks: baseTimes.map((at) => ({ left: share(at), at })),
  };
}
