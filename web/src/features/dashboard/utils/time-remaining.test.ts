import { describe, expect, test } from "bun:test";
import {
  type EstimatorState,
  estimateSeconds,
  floorSecondsAt,
  formatTimeRemaining,
  initialEstimatorState,
  observeProgress,
  type ProgressSnapshot,
  tickCountdown,
  weightedSpeed,
} from "./time-remaining";

const at = (current: number, total = 100_000): ProgressSnapshot => ({ current, total, percentage: Math.floor((current / total) * 100) });

/** Feeds reports [(documents, second)] into a fresh estimator. */
function feed(reports: Array<[number, number]>, total = 100_000, start: EstimatorState = initialEstimatorState) {
  return reports.reduce((state, [current, second]) => observeProgress(state, at(current, total), second * 1000), start);
}

describe("time-remaining estimator", () => {
  test("the first report only anchors: no estimate without a speed sample", () => {
    const state = feed([[0, 0]]);
    expect(state.remaining).toBeNull();
    expect(state.speeds).toEqual([]);
  });

  test("a sample is taken only after at least 100 more documents", () => {
    let state = feed([
      [0, 0],
      [99, 1],
    ]);
    expect(state.speeds).toEqual([]);
    expect(state.remaining).toBeNull();
    // The anchor stayed at 0 documents, 0 s: 100 documents in 2 s is 50 documents a second.
    state = observeProgress(state, at(100), 2000);
    expect(state.speeds).toEqual([50]);
    // 99 900 documents left at 50/s.
    expect(state.remaining).toBe(1998);
  });

  test("only the last 3 samples count, weighted 1-2-3 toward the most recent", () => {
    expect(weightedSpeed([10, 20, 30])).toBeCloseTo((10 + 40 + 90) / 6);
    expect(weightedSpeed([100])).toBe(100);
    const state = feed(
      [
        [0, 0],
        [1000, 1],
        [3000, 2],
        [6000, 3],
        [10_000, 4],
      ],
      1_000_000,
    );
    // Samples 1000, 2000, 3000, 4000 docs/s: the first drops out.
    expect(state.speeds).toEqual([2000, 3000, 4000]);
    expect(state.remaining).toBe(Math.ceil(990_000 / ((2000 + 6000 + 12_000) / 6)));
    expect(state.remaining).toBe(297);
  });

  test("the shown estimate changes only when a new one differs by more than 15 s", () => {
    // 100 docs/s over 10 000 documents: 9 000 left → 90 s.
    let state = feed(
      [
        [0, 0],
        [1000, 10],
      ],
      10_000,
    );
    expect(state.remaining).toBe(90);
    // Same speed, further on: a new estimate of 80 s (within 15 s of 90) keeps the shown 90.
    state = observeProgress(state, at(2000, 10_000), 20_000);
    expect(estimateSeconds(state.speeds, at(2000, 10_000))).toBe(80);
    expect(state.remaining).toBe(90);
    // Much faster: 4 000 docs in 1 s → the new estimate is far from 90, so it replaces it.
    state = observeProgress(state, at(6000, 10_000), 21_000);
    expect(state.remaining).not.toBe(90);
    expect(state.remaining).toBe(60); // 4 000 left at a high speed: held at the 60 s floor
  });

  test("counts down one second a tick, never below the floor", () => {
    let state = feed(
      [
        [0, 0],
        [1000, 10],
      ],
      10_000,
    ); // 90 s
    state = tickCountdown(state);
    expect(state.remaining).toBe(89);
    for (let i = 0; i < 100; i++) state = tickCountdown(state);
    expect(state.remaining).toBe(60);
    expect(tickCountdown(initialEstimatorState).remaining).toBeNull();
  });

  test("the 60 s floor shrinks to 80, 60 and 40 % past 85, 90 and 95 %", () => {
    expect(floorSecondsAt(0)).toBe(60);
    expect(floorSecondsAt(85)).toBe(60);
    expect(floorSecondsAt(86)).toBe(48);
    expect(floorSecondsAt(90)).toBe(48);
    expect(floorSecondsAt(91)).toBe(36);
    expect(floorSecondsAt(95)).toBe(36);
    expect(floorSecondsAt(96)).toBe(24);
    // A fast restore near its end shows the floor of its stage, not a few seconds.
    expect(estimateSeconds([10_000], { current: 97_000, total: 100_000, percentage: 97 })).toBe(24);
    expect(estimateSeconds([10_000], { current: 88_000, total: 100_000, percentage: 88 })).toBe(48);
  });

  test("a count that goes backwards restarts the measurement", () => {
    let state = feed([
      [0, 0],
      [5000, 5],
    ]);
    state = observeProgress(state, at(10), 6000);
    expect(state.anchor).toEqual({ current: 10, at: 6000 });
  });
});

describe("formatTimeRemaining", () => {
  test("seconds, minutes, or hours plus minutes", () => {
    expect(formatTimeRemaining(1)).toBe("1 second");
    expect(formatTimeRemaining(45)).toBe("45 seconds");
    expect(formatTimeRemaining(60)).toBe("1 minute");
    expect(formatTimeRemaining(150)).toBe("3 minutes");
    expect(formatTimeRemaining(3599)).toBe("1 hour");
    expect(formatTimeRemaining(3600 + 5 * 60)).toBe("1 hour 5 minutes");
    expect(formatTimeRemaining(2 * 3600 + 60)).toBe("2 hours 1 minute");
  });
});
