// Feeds a running restore's or backup's progress into the estimator and ticks its countdown each second.
import { useEffect, useState } from "react";
import type { OperationProgress } from "../api/dashboard-api";
import { COUNTDOWN_INTERVAL_MS, initialEstimatorState, observeProgress, tickCountdown } from "../utils/time-remaining";

/** Seconds left for a running operation, or null until the estimator has a speed sample. */
export function useTimeRemaining(progress: OperationProgress | null): number | null {
  const [state, setState] = useState(initialEstimatorState);

  useEffect(() => {
    if (progress) setState((current) => observeProgress(current, progress, Date.now()));
  }, [progress?.current, progress?.total, progress?.percentage]);

  useEffect(() => {
    const timer = setInterval(() => setState(tickCountdown), COUNTDOWN_INTERVAL_MS);
    return () => clearInterval(timer);
  }, []);

  return state.remaining;
}
