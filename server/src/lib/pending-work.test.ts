import { expect, test } from "bun:test";
import { settle } from "../../../testkit/manual-clock";
import { createPendingWork } from "./pending-work";

/** A promise the test settles itself, recording when it did. */
function deferred(label: string, finished: string[]) {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = () => {
      finished.push(label);
      res();
    };
    reject = (error) => {
      finished.push(label);
      rej(error);
    };
  });
  return { promise, resolve, reject };
}

test("settled waits for tracked work, also work tracked while it waits, and ignores failures", async () => {
  const pending = createPendingWork();
  const finished: string[] = [];
  const first = deferred("first", finished);
  const failing = deferred("failing", finished);
  const second = deferred("second", finished);

  pending.track(first.promise);
  pending.track(failing.promise).catch(() => {});
  let done = false;
  const settled = pending.settled().then(() => {
    done = true;
    return finished.slice();
  });
  // Tracked after settled() began waiting (a close handler that starts another one).
  pending.track(second.promise);

  failing.reject(new Error("failing"));
  first.resolve();
  await settle();
  expect(done).toBe(false); // "second" is still running
  second.resolve();

  expect(await settled).toEqual(["failing", "first", "second"]);
  await pending.settled(); // nothing left: resolves at once
});
