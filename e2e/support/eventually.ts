import { waitUntil } from "../../testkit/wait-until";

/**
 * Reads a value until the assertion on it passes, for state the page reaches some time after an
 * action (focus moving into a menu, rows after a filter, a toast): one read straight after the
 * action can come first on a busy machine. On timeout the last assertion's message is reported.
 */
export async function eventually<T>(read: () => Promise<T> | T, assert: (value: T) => void, timeout = 10_000): Promise<void> {
  await waitUntil(
    async () => {
      assert(await read());
      return true;
    },
    { timeout, interval: 25, message: "the page to reach the expected state" },
  );
}

/**
 * A gate for a routed request: the handler waits on it, and the test releases it once it has
 * seen the busy state the held request shows (instead of delaying the answer a guessed time).
 */
export function holdUntilReleased() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { wait: () => released, release };
}
