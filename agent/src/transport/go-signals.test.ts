import { describe, expect, test } from "bun:test";
import { createGoSignals } from "./go-signals";

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

/** Tracks whether a promise has settled, to check that a wait is still pending. */
function track(promise: Promise<void>) {
  const state = { settled: false };
  void promise.then(() => (state.settled = true));
  return state;
}

describe("go signals", () => {
  test("a wait resolves on its own part's go, not on another part's", async () => {
    const signals = createGoSignals(5_000);
    const started = performance.now();
    const wait = signals.wait("backup-a", 1);
    const state = track(wait);

    signals.signal("backup-a", 2); // another part of the same backup
    signals.signal("backup-b", 1); // the same part number of another backup
    await tick();
    expect(state.settled).toBe(false);

    signals.signal("backup-a", 1);
    await wait;
    // Well before the 5 s fallback: it was the go that resolved it.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test("a go that arrives before the wait makes the wait resolve at once", async () => {
    const signals = createGoSignals(5_000);
    signals.signal("backup-a", 0);
    const started = performance.now();
    await signals.wait("backup-a", 0);
    expect(performance.now() - started).toBeLessThan(100);
  });

  test("with no go, a wait resolves after waitMs", async () => {
    const signals = createGoSignals(50);
    const started = performance.now();
    await signals.wait("backup-a", 0);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(45);
    expect(elapsed).toBeLessThan(1_000);
  });

  test("an early go is consumed by one wait; the next wait for that part times out", async () => {
    const signals = createGoSignals(50);
    signals.signal("backup-a", 3);

    let started = performance.now();
    await signals.wait("backup-a", 3);
    expect(performance.now() - started).toBeLessThan(45);

    started = performance.now();
    await signals.wait("backup-a", 3);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });
});
