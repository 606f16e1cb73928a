import { expect, test } from "bun:test";
import { createPendingWork } from "./pending-work";

test("settled waits for tracked work, also work tracked while it waits, and ignores failures", async () => {
  const pending = createPendingWork();
  const finished: string[] = [];
  const later = (label: string, ms: number, fail = false) =>
    Bun.sleep(ms).then(() => {
      finished.push(label);
      if (fail) throw new Error(label);
    });

  pending.track(later("first", 20));
  pending.track(later("failing", 10, true)).catch(() => {});
  const settled = pending.settled().then(() => finished.slice());
  // Tracked after settled() began waiting (a close handler that starts another one).
  pending.track(later("second", 40));

  expect(await settled).toEqual(["failing", "first", "second"]);
  await pending.settled(); // nothing left: resolves at once
});
