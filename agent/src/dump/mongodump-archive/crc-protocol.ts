// What the CRC offload (crc-offload.ts) and its thread (crc-worker.ts) say to each other.

/** Index in the shared progress array: the sequence number of the last batch applied. */
export const PROGRESS_DONE = 0;
/** Index in the shared progress array: 1 once the thread failed. */
export const PROGRESS_FAILED = 1;

export type CrcOperation =
  /** Bytes of an input slot, read in place. */
  | { namespace: number; slot: number; start: number; end: number }
  /** Bytes from elsewhere, copied. */
  | { namespace: number; bytes: Uint8Array }
  /** The namespace's end marker: compare what was fed so far with its stored CRC. */
  | { namespace: number; storedCrc: bigint; offset: number };

export type CrcWorkerMessage =
  | { kind: "start"; slots: SharedArrayBuffer[]; progress: SharedArrayBuffer }
  | { kind: "batch"; sequence: number; operations: CrcOperation[] }
  | { kind: "finish" };

export type CrcMismatch = { namespace: number; storedCrc: bigint; offset: number };

export type CrcWorkerReply = { mismatches: CrcMismatch[] } | { error: string };
