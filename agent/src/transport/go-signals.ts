import { UPLOAD_GO_WAIT_MS } from "../../../protocol/agent-protocol";
import { type Clock, systemClock } from "../../../protocol/clock";

/**
 * The server's `upload.go` messages (it is ready to read a part's body), matched to the part
 * uploads waiting for them. A go may arrive before its upload starts waiting, so recent ones are
 * remembered (a few hundred at most: they are consumed within seconds).
 */
export function createGoSignals(waitMs = UPLOAD_GO_WAIT_MS, clock: Clock = systemClock) {
  const keyOf = (backupId: string, partNumber: number) => `${backupId}/${partNumber}`;
  const waiters = new Map<string, () => void>();
  const early = new Set<string>();
  return {
    /** Records a go from the server. */
    signal(backupId: string, partNumber: number) {
      const key = keyOf(backupId, partNumber);
      const waiter = waiters.get(key);
      if (waiter) return waiter();
      early.add(key);
      if (early.size > 256) early.delete(early.values().next().value!);
    },
    /** Resolves on the part's go, or after `waitMs` (a lost message or an older server): never rejects. */
    wait(backupId: string, partNumber: number): Promise<void> {
      const key = keyOf(backupId, partNumber);
      if (early.delete(key)) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          cancel();
          if (waiters.get(key) === done) waiters.delete(key);
          resolve();
        };
        const cancel = clock.after(waitMs, done);
        waiters.set(key, done);
      });
    },
  };
}

export type GoSignals = ReturnType<typeof createGoSignals>;

/** A part's request body that sends `bytes` only once `go` resolves (the request itself goes out at once). */
export function bodyAfterGo(bytes: Uint8Array, go: Promise<void>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      await go;
      controller.enqueue(bytes);
      controller.close();
    },
  });
}
