// The one way tests wait for something to happen. A fixed sleep guesses how long the machine
// needs; on a loaded 2-core CI machine the guess is wrong sooner or later, so tests poll for the
// thing itself and only a generous deadline (far above the normal time) turns into a failure.

export interface WaitOptions {
  /** Give up after this many milliseconds (default 15 s: far above any normal wait, so load cannot trip it). */
  timeout?: number;
  /** Milliseconds between two checks (default 20). */
  interval?: number;
  /** What is awaited, for the error: "timed out after 15000 ms waiting for <message>". */
  message?: string;
}

/** A value that means "not yet": the condition is checked again after `interval`. */
type NotYet = undefined | null | false;

/**
 * Checks `condition` until it returns something other than undefined, null or false, and returns
 * that. A condition that throws (a failed `expect`, say) counts as "not yet"; if the deadline
 * passes, the last error is rethrown inside the timeout error so the failure says what was wrong.
 */
export async function waitUntil<T>(condition: () => T | NotYet | Promise<T | NotYet>, options: WaitOptions = {}): Promise<T> {
  const { timeout = 15_000, interval = 20, message = "the condition" } = options;
  const deadline = performance.now() + timeout;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value !== undefined && value !== null && value !== false) return value as T;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (performance.now() >= deadline) {
      const cause = lastError instanceof Error ? `: ${lastError.message}` : "";
      throw new Error(`timed out after ${timeout} ms waiting for ${message}${cause}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}
