// When a database's scheduled backups fall, from its own schedule (frequency, time of day, a UTC
// window) or the account's frequency. Pure: the scheduler and the settings route both use it.
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MINUTE = 60_000;

export type DatabaseSchedule = {
  everyHours: number;
  /** Minutes after 00:00 UTC at which the slots are anchored; null: no fixed time. */
  timeOfDay: number | null;
  /** The UTC window (minutes after midnight) a backup must start in; end < start wraps midnight. */
  window: { start: number; end: number } | null;
};

/** "HH:MM" (00:00–23:59) as minutes after midnight, or null when malformed. */
export function parseTimeOfDay(text: string): number | null {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  return match ? Number(match[1]) * 60 + Number(match[2]) : null;
}

export const formatTimeOfDay = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;

/** Whether `at` falls inside the window (always true without one). */
export function inWindow(schedule: DatabaseSchedule, at: number): boolean {
  if (!schedule.window) return true;
  const minute = Math.floor((((at % DAY) + DAY) % DAY) / MINUTE);
  const { start, end } = schedule.window;
  return start < end ? minute >= start && minute < end : minute >= start || minute < end;
}

/** A schedule anchored to the clock (a time of day or a window) rather than to its last slot. */
export const isAnchored = (schedule: DatabaseSchedule) => schedule.timeOfDay !== null || schedule.window !== null;

/**
 * The next slot strictly after `now`. Anchored schedules fall on the time of day (else the window's
 * start) plus whole multiples of the frequency, counted from the epoch's first day, skipping slots
 * outside the window. Unanchored ones keep the previous slot's rhythm, never in the past.
 */
export function nextSlot(schedule: DatabaseSchedule, now: number, previous: number | null): number {
  const every = schedule.everyHours * HOUR;
  if (!isAnchored(schedule)) {
    const next = previous === null ? now + every : previous + every;
    return next <= now ? now + every : next;
  }
  const anchor = (schedule.timeOfDay ?? schedule.window!.start) * MINUTE;
  let slot = anchor + (Math.floor((now - anchor) / every) + 1) * every;
  // A slot in the window comes within a day and a frequency period (hourly slots fill any window of
  // an hour or more; daily and longer ones start at the anchor, which the route keeps in the window).
  for (let i = 0; i < 24 * 32 && !inWindow(schedule, slot); i++) slot += every;
  return slot;
}

/** Whether a slot claimed at `now` is still inside its window (false: it missed it, e.g. server down). */
export const windowStillOpen = (schedule: DatabaseSchedule, now: number) => inWindow(schedule, now);
