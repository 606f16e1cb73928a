// Checksums on a second thread. `encrypt` reads an archive into a ring of shared input slots; the
// scanner walks each slot on the main thread and records what to checksum (views of the slot,
// never copies of document bodies), a batch per slot goes to the CRC thread, and a slot is read
// into again only once that thread is through it. On 2 cores this takes CRC-64 (~0.5 s per GiB,
// the largest cost of sealing after the I/O) off the thread that reads, seals and writes.
import { RUNNING_COMPILED } from "../../build-info.ts";
import { crcMismatchError } from "./archive-scanner.ts";
import { type CrcOperation, type CrcWorkerMessage, type CrcWorkerReply, PROGRESS_DONE, PROGRESS_FAILED } from "./crc-protocol.ts";
import type { ChecksumFactory } from "./namespace-checksum.ts";

// The thread keeps up with the reads (CRC-64 runs at ~1.5 GB/s here), so a wait is rare; past
// this long without progress it is taken to be gone.
const STALLED_AFTER_MS = 60_000;

// The compiled agent carries the worker as an entry point of its own (scripts/build-agent.ts),
// found by its path from the entry points' common folder, agent/src; never from disk, where the
// source may not be. From source, it is the file beside this one.
function workerLocation(): string | URL {
  return RUNNING_COMPILED ? "./dump/mongodump-archive/crc-worker.ts" : new URL("./crc-worker.ts", import.meta.url);
}

export interface CrcOffload {
  /** The input slots (shared memory): read into these, scan them, then `submit`. */
  readonly slots: readonly Buffer[];
  /** The scanner's checksums (ScanOptions.checksums). */
  readonly checksums: ChecksumFactory;
  /** Sends what the scanner recorded since the last call; `slot` stays busy until the thread is through it. */
  submit(slot: number): void;
  /** Returns once the thread is done with `slot` (a synchronous wait); throws if the thread failed or stalled. */
  waitForSlot(slot: number): void;
  /** Waits for every checksum; throws MongodumpArchiveError "crc-mismatch" for the first namespace that does not match. */
  finish(): Promise<void>;
  /** Stops the thread; never throws. */
  close(): void;
}

/** Starts the CRC thread with `slotCount` input slots of `slotBytes` each; throws only if the thread cannot start. */
export function startCrcOffload(slotCount: number, slotBytes: number): CrcOffload {
  const shared = Array.from({ length: slotCount }, () => new SharedArrayBuffer(slotBytes));
  const slots = shared.map((memory) => Buffer.from(memory));
  const slotOf = new Map<ArrayBufferLike, number>(shared.map((memory, index) => [memory, index]));
  const progress = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(workerLocation());
  const replies: CrcWorkerReply[] = [];
  let onReply: (() => void) | undefined;
  let threadError: string | undefined;
  worker.onmessage = (event: MessageEvent<CrcWorkerReply>) => {
    replies.push(event.data);
    onReply?.();
  };
  worker.onerror = (event) => {
    threadError = event.message || "the checksum thread stopped";
    Atomics.store(progress, PROGRESS_FAILED, 1);
    onReply?.();
  };
  const post = (message: CrcWorkerMessage) => worker.postMessage(message);
  post({ kind: "start", slots: shared, progress: progress.buffer as SharedArrayBuffer });

  const names: string[] = [];
  let operations: CrcOperation[] = [];
  let sequence = 0;
  const slotSequence = new Array<number>(slotCount).fill(0);

  const failure = () => new Error(`checksumming failed: ${threadError ?? "the checksum thread stopped"}`);

  return {
    slots,
    checksums(name) {
      const namespace = names.push(name) - 1;
      return {
        update(bytes, start = 0, end = bytes.length) {
          if (end <= start) return;
          const slot = slotOf.get(bytes.buffer);
          if (slot === undefined) operations.push({ namespace, bytes: bytes.slice(start, end) });
          else operations.push({ namespace, slot, start: bytes.byteOffset + start, end: bytes.byteOffset + end });
        },
        matches(storedCrc, offset) {
          operations.push({ namespace, storedCrc, offset });
          return undefined;
        },
      };
    },
    submit(slot) {
      sequence++;
      post({ kind: "batch", sequence, operations });
      operations = [];
      slotSequence[slot] = sequence;
    },
    waitForSlot(slot) {
      const wanted = slotSequence[slot]!;
      let lastDone = Atomics.load(progress, PROGRESS_DONE);
      let lastProgressAt = performance.now();
      while (lastDone < wanted) {
        if (Atomics.load(progress, PROGRESS_FAILED) === 1) throw failure();
        Atomics.wait(progress, PROGRESS_DONE, lastDone, 100);
        const done = Atomics.load(progress, PROGRESS_DONE);
        if (done !== lastDone) [lastDone, lastProgressAt] = [done, performance.now()];
        else if (performance.now() - lastProgressAt > STALLED_AFTER_MS) throw failure();
      }
    },
    async finish() {
      if (operations.length > 0) post({ kind: "batch", sequence: ++sequence, operations });
      operations = [];
      post({ kind: "finish" });
      while (replies.length === 0 && threadError === undefined) await new Promise<void>((resolve) => (onReply = resolve));
      const reply = replies.shift();
      if (!reply || "error" in reply) {
        threadError ??= reply?.error;
        throw failure();
      }
      const first = reply.mismatches[0];
      if (first) throw crcMismatchError(names[first.namespace]!, first.storedCrc, first.offset);
    },
    close() {
      worker.terminate();
    },
  };
}
