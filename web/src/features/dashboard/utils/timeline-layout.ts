// The restore wizard's timeline of a database, laid out: covered ranges, gaps and base backups
// as shares of one bar, and whether a chosen second is one the picker accepts. Pure.

export type Position = { ts: string; at: string };
type Window = { from: Position; to: Position };
/** What the wizard reads of the server's timeline: what was shipped, its gaps, and what can be restored. */
export type Timeline = { ranges: Window[]; gaps: (Window & { reason: string })[]; restorable: Window[] };

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
 * The whole seconds each restorable window holds: from its base's second to the second before its
 * end's (an ISO time means every write of its second, and the rest of the end's second may not be
 * shipped yet). A window inside one second holds none.
 */
function restorableSeconds(timeline: Timeline): { from: number; to: number }[] {
  return timeline.restorable.map((window) => ({ from: seconds(window.from.at), to: seconds(window.to.at) - 1 })).filter((window) => window.to >= window.from);
}

/** Whether the second is one the server restores to (the same windows its 422 names). The server decides; this keeps the picker honest. */
export function isCovered(timeline: Timeline, moment: string): boolean {
  const at = seconds(moment);
  return restorableSeconds(timeline).some((window) => window.from <= at && at <= window.to);
}

/** The earliest and latest seconds the picker offers. */
export function pickerBounds(timeline: Timeline): { min: string; max: string } | null {
  const covered = restorableSeconds(timeline);
  if (covered.length === 0) return null;
  const iso = (value: number) => new Date(value * 1000).toISOString();
  return { min: iso(Math.min(...covered.map((c) => c.from))), max: iso(Math.max(...covered.map((c) => c.to))) };
}

export type BarSegment = { kind: "covered" | "gap"; left: number; width: number; from: string; to: string };

/**
 * The bar from the first shipped time to the last: what can be restored in green ("covered"), and
 * every stretch between that cannot in red ("gap"), be it a gap in the oplog or shipped oplog with
 * no base backup before it (after a rollover, until the new chain's first backup). Base marks by time.
 */
export function layoutTimeline(timeline: Timeline, baseTimes: string[]): { segments: BarSegment[]; marks: { left: number; at: string }[] } {
  const times = [...timeline.ranges.flatMap((r) => [r.from.at, r.to.at]), ...timeline.restorable.flatMap((r) => [r.from.at, r.to.at]), ...baseTimes].map(
    seconds,
  );
  if (times.length === 0) return { segments: [], marks: [] };
  const start = Math.min(...times);
  const end = Math.max(...times);
  const span = Math.max(1, end - start);
  const share = (at: number) => ((at - start) / span) * 100;
  const iso = (at: number) => new Date(at * 1000).toISOString();
  const segment = (kind: BarSegment["kind"], from: number, to: number): BarSegment => ({
    kind,
    left: share(from),
    width: Math.max(0.5, share(to) - share(from)),
    from: iso(from),
    to: iso(to),
  });
  const windows = timeline.restorable.map((w) => ({ from: seconds(w.from.at), to: seconds(w.to.at) })).sort((a, b) => a.from - b.from);
  const segments: BarSegment[] = [];
  let cursor = Math.min(...timeline.ranges.map((r) => seconds(r.from.at)), ...windows.map((w) => w.from));
  for (const window of windows) {
    if (window.from > cursor) segments.push(segment("gap", cursor, window.from));
    segments.push(segment("covered", window.from, window.to));
    cursor = Math.max(cursor, window.to);
  }
  const shippedEnd = Math.max(...timeline.ranges.map((r) => seconds(r.to.at)), cursor);
  if (shippedEnd > cursor) segments.push(segment("gap", cursor, shippedEnd));
  return { segments, marks: baseTimes.map((at) => ({ left: share(seconds(at)), at })) };
}
