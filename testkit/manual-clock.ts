import type { Clock } from "../protocol/clock";

/** A Clock whose time moves only when the test calls advance(): timeouts fire then, in order. */
export function createManualClock() {
  let time = 0;
  const pending = new Set<{ at: number; callback: () => void }>();
  const clock: Clock = {
    now: () => time,
    after(ms, callback) {
      const entry = { at: time + ms, callback };
      pending.add(entry);
      return () => pending.delete(entry);
    },
  };
  return {
    clock,
    /** Moves time on by `ms`, firing every callback that falls due, earliest first. */
    advance(ms: number) {
      time += ms;
      for (const entry of [...pending].sort((a, b) => a.at - b.at)) {
        if (entry.at > time || !pending.has(entry)) continue;
        pending.delete(entry);
        entry.callback();
      }
    },
    /** Callbacks scheduled and not yet fired or cancelled. */
    scheduled: () => pending.size,
  };
}

/** Lets every promise reaction that is ready run, without any time passing on a manual clock. */
export const settle = () => new Promise((resolve) => setImmediate(resolve));
