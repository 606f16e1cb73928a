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

// Pieces of a part's body handed to fetch one at a time: given a whole 8 MiB part (as bytes or
// as one piece), Bun copies it into its own send buffer, 8 MiB more per part in flight.
const BODY_PIECE_BYTES = 1024 * 1024;

/**
 * A part's request body that sends `bytes` only once `go` resolves (the request itself goes out
 * at once), in pieces that fetch pulls as it sends them.
 */
export function bodyAfterGo(bytes: Uint8Array, go: Promise<void>): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (offset === 0) await go;
        const end = Math.min(bytes.byteLength, offset + BODY_PIECE_BYTES);
        if (end > offset) controller.enqueue(bytes.subarray(offset, end));
        offset = end;
        if (offset >= bytes.byteLength) controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}
