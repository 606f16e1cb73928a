/** Fixed-window counters kept in this process's memory. */
export type RateLimiter = {
  /** Counts one hit for `key`; returns the seconds to wait when over the limit, else 0. */
  hit(key: string): number;
  /** Forgets `key` (e.g. after a successful sign-in). */
  reset(key: string): void;
};

export function createRateLimiter(limit: number, windowMs: number, now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { count: number; startedAt: number }>();
  let lastSweep = now();
  const sweep = (at: number) => {
    // Bounded memory: drop expired windows at most once per window length.
    if (at - lastSweep < windowMs) return;
    lastSweep = at;
    for (const [key, window] of windows) if (at - window.startedAt >= windowMs) windows.delete(key);
  };
  return {
    hit(key) {
      const at = now();
      sweep(at);
      let window = windows.get(key);
      if (!window || at - window.startedAt >= windowMs) {
        window = { count: 0, startedAt: at };
        windows.set(key, window);
      }
      window.count += 1;
      return window.count > limit ? Math.ceil((window.startedAt + windowMs - at) / 1000) : 0;
    },
    reset(key) {
      windows.delete(key);
    },
  };
}
