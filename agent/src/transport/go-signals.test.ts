import { describe, expect, test } from "bun:test";
import { createManualClock, settle } from "../../../testkit/manual-clock";
import { createGoSignals } from "./go-signals";

// The fallback wait runs on a manual clock the test moves: no outcome depends on machine speed.

/** Tracks whether a promise has settled, to check that a wait is still pending. */
function track(promise: Promise<void>) {
  const state = { settled: false };
  void promise.then(() => (state.settled = true));
  return state;
}

describe("go signals", () => {
  test("a wait resolves on its own part's go, not on another part's", async () => {
    const { clock } = createManualClock(); // never advanced: only a go can resolve the wait
    const signals = createGoSignals(5_000, clock);
    const wait = signals.wait("backup-a", 1);
    const state = track(wait);

    signals.signal("backup-a", 2); // another part of the same backup
    signals.signal("backup-b", 1); // the same part number of another backup
    await settle();
    expect(state.settled).toBe(false);

    signals.signal("backup-a", 1);
    await wait;
  });

  test("a go that arrives before the wait makes the wait resolve at once", async () => {
    const { clock } = createManualClock();
    const signals = createGoSignals(5_000, clock);
    signals.signal("backup-a", 0);
    const state = track(signals.wait("backup-a", 0));
    await settle();
    expect(state.settled).toBe(true);
  });

  test("with no go, a wait resolves after waitMs", async () => {
    const { clock, advance, scheduled } = createManualClock();
    const signals = createGoSignals(50, clock);
    const wait = signals.wait("backup-a", 0);
    const state = track(wait);
    advance(49);
    await settle();
    expect(state.settled).toBe(false);
    advance(1);
    await wait;
    expect(scheduled()).toBe(0);
  });

  test("an early go is consumed by one wait; the next wait for that part times out", async () => {
    const { clock, advance } = createManualClock();
    const signals = createGoSignals(50, clock);
    signals.signal("backup-a", 3);

    const first = track(signals.wait("backup-a", 3));
    await settle();
    expect(first.settled).toBe(true);

    const secondWait = signals.wait("backup-a", 3);
    const second = track(secondWait);
    await settle();
    expect(second.settled).toBe(false);
    advance(50);
    await secondWait;
  });
});
