// The restore time-remaining estimate of spec section 4: the last 3 speed samples weighted toward
// the most recent; a sample only after at least 100 more documents; the shown value replaced only
// when a new estimate differs from it by more than 15 s, otherwise counting down each second; and
// a floor of 60 s that shrinks to 80 %, 60 % and 40 % once progress passes 85 %, 90 % and 95 %.

export const SAMPLE_MIN_DOCUMENTS = 100;
export const MAX_SPEED_SAMPLES = 3;
export const REFRESH_THRESHOLD_SECONDS = 15;
export const COUNTDOWN_INTERVAL_MS = 1_000;
export const BASE_FLOOR_SECONDS = 60;
const FLOOR_STEPS = [
  { above: 95, factor: 0.4 },
  { above: 90, factor: 0.6 },
  { above: 85, factor: 0.8 },
] as const;

export type ProgressSnapshot = { current: number; total: number; percentage: number };

export type EstimatorState = {
  /** The point the next speed sample is measured from. */
  anchor: { current: number; at: number } | null;
  /** Documents per second, oldest first, at most three. */
  speeds: number[];
  /** Seconds shown to the user, or null before the first sample. */
  remaining: number | null;
  /** The floor for the latest progress; the countdown never goes below it. */
  floor: number;
};

export const initialEstimatorState: EstimatorState = { anchor: null, speeds: [], remaining: null, floor: BASE_FLOOR_SECONDS };

/** The lowest estimate shown at this percentage: 60 s, then 48, 36 and 24 s past 85, 90 and 95 %. */
export function floorSecondsAt(percentage: number): number {
  const step = FLOOR_STEPS.find((s) => percentage > s.above);
  return Math.round(BASE_FLOOR_SECONDS * (step?.factor ?? 1));
}

/** The mean of the speeds weighted 1, 2, 3… from oldest to newest (recent speed counts most). */
export function weightedSpeed(speeds: number[]): number {
  if (speeds.length === 0) return 0;
  let sum = 0;
  let weights = 0;
  speeds.forEach((speed, index) => {
    sum += speed * (index + 1);
    weights += index + 1;
  });
  return sum / weights;
}

/** Seconds left at the weighted speed, never below the floor for the progress reached. */
export function estimateSeconds(speeds: number[], progress: ProgressSnapshot): number | null {
  const speed = weightedSpeed(speeds);
  if (speed <= 0) return null;
  const left = Math.max(0, progress.total - progress.current);
  return Math.max(floorSecondsAt(progress.percentage), Math.ceil(left / speed));
}

/** Takes in a progress report received at `now` (ms); returns the next estimator state. */
export function observeProgress(state: EstimatorState, progress: ProgressSnapshot, now: number): EstimatorState {
  const floor = floorSecondsAt(progress.percentage);
  // First report, or the count went backwards (the agent restarted the restore): measure afresh.
  if (!state.anchor || progress.current < state.anchor.current) {
    return { ...state, anchor: { current: progress.current, at: now }, floor };
  }
  const documents = progress.current - state.anchor.current;
  const seconds = (now - state.anchor.at) / 1000;
  if (documents < SAMPLE_MIN_DOCUMENTS || seconds <= 0) return { ...state, floor };
  const speeds = [...state.speeds, documents / seconds].slice(-MAX_SPEED_SAMPLES);
  const estimate = estimateSeconds(speeds, progress);
  const refresh = estimate !== null && (state.remaining === null || Math.abs(estimate - state.remaining) > REFRESH_THRESHOLD_SECONDS);
  return {
    anchor: { current: progress.current, at: now },
    speeds,
    floor,
    remaining: refresh ? estimate : state.remaining === null ? null : Math.max(floor, state.remaining),
  };
}

/** One second of countdown (down to the floor: below it the estimate would promise too much). */
export function tickCountdown(state: EstimatorState): EstimatorState {
  if (state.remaining === null) return state;
  return { ...state, remaining: Math.max(state.floor, state.remaining - 1) };
}

/** '45 seconds', '3 minutes', '1 hour 5 minutes' (seconds, minutes, or hours plus minutes). */
export function formatTimeRemaining(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? "" : "s"}`;
  if (whole < 60) return plural(whole, "second");
  const totalMinutes = Math.round(whole / 60);
  if (totalMinutes < 60) return plural(totalMinutes, "minute");
  const hours = Math.floor(totalMinutes / 60);
  const minutes = totalMinutes % 60;
  return minutes === 0 ? plural(hours, "hour") : `${plural(hours, "hour")} ${plural(minutes, "minute")}`;
}
