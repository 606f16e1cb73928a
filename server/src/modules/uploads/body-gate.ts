/**
 * Server-wide admission of part bodies. The server is CPU-bound while it takes in bodies, so
 * reading more than a few at once only makes each slower; meanwhile every body the runtime has
 * started to receive costs memory (Bun buffers ~1.5-2 MB of each open request body that JS has not
 * read yet). Parts wait here before their body is read, and agents that hold their bodies back
 * until told (`upload.go`) send nothing while they wait.
 *
 * A part that has waited MAX_WAIT_MS goes ahead anyway: a few slow clients holding the gate must
 * not stall everyone else's backups (slow bodies arrive slowly, so they cost little memory).
 */
import { type Clock, systemClock } from "@protocol/clock";

export const BODIES_AT_ONCE = 3;
export const MAX_WAIT_MS = 10_000;

/**
 * A full garbage collection after every this many body bytes. The native memory behind a read
 * request (Bun's receive buffers, the body stream) is freed only when its JS objects are collected,
 * and JavaScriptCore collects in proportion to the live heap, not to the bytes flowing through:
 * at ingest speed the server's resident set grew by 100-250 MB of dead request memory before a
 * collection came (bench/ingest.ts). One collection here takes ~20 ms on the server's heap, about
 * 4 % of the time 128 MB take to arrive.
 */
export const COLLECT_EVERY_BYTES = 128 * 1024 * 1024;

export type BodyGate = {
  /** Waits for a turn to read a body; call the returned function with the bytes read once done (or failed). */
  enter(): Promise<(bytesRead: number) => void>;
};

/** One per server process (it lives on the AppContext); tests give it a manual clock. */
export function createBodyGate(clock: Clock = systemClock): BodyGate {
  let reading = 0;
  let bytesSinceCollection = 0;
  const waiting: Array<() => void> = [];
  return {
    async enter() {
      if (reading >= BODIES_AT_ONCE) {
        await new Promise<void>((resolve) => {
          const admit = () => {
            cancel();
            resolve();
          };
          const cancel = clock.after(MAX_WAIT_MS, () => {
            waiting.splice(waiting.indexOf(admit), 1);
            resolve();
          });
          waiting.push(admit);
        });
      }
      reading++;
      let left = false;
      return (bytesRead) => {
        if (left) return;
        left = true;
        reading--;
        if (reading < BODIES_AT_ONCE) waiting.shift()?.();
        bytesSinceCollection += bytesRead;
        if (bytesSinceCollection >= COLLECT_EVERY_BYTES) {
          bytesSinceCollection = 0;
          Bun.gc(true);
        }
      };
    },
  };
}
