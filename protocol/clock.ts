/**
 * Time as the server's and the agent's waiting code sees it: what time it is, and a callback after a delay.
 * Production uses the system's; tests pass testkit/manual-clock.ts and move time themselves,
 * so no outcome depends on how busy the machine is.
 */
export type Clock = {
  /** Milliseconds on a monotonic scale. */
  now(): number;
  /** Calls `callback` once `ms` have passed; returns its cancellation. */
  after(ms: number, callback: () => void): () => void;
};

export const systemClock: Clock = {
  now: () => performance.now(),
  after(ms, callback) {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};
