// Keeps a long dump or restore at flat memory. Every document passes through several short-lived
// buffers (driver reply, archive chunk, compressor and cipher output), and Bun's collector
// (JavaScriptCore), which sizes its heap from the machine's RAM, lets that garbage pile up to
// hundreds of MB before collecting: the memory is garbage, not leaks (BUN_JSC_forceRAMSize=100MB
// flattens it too). Measured on a 200 MB dump through the compiled agent: peak RSS 210-260 MB
// without pacing; 105-135 MB with a full collection every 2-4 MiB of archive, which also ran
// faster (4.4 s instead of 6.6 s). The whole-file check of a backup (verification, and the first
// read of a restore) is paced too: unpaced it reached 230 MB on a 300 MB database. See
// bench/dump-memory.ts.

const DEFAULT_BYTES_PER_COLLECTION = 4 * 1024 * 1024;

export interface MemoryPacer {
  /** Counts processed bytes and collects garbage each time the interval is crossed. */
  note(bytes: number): void;
}

/** Returns a pacer collecting every `bytesPerCollection` bytes (0 turns it off); never throws. */
export function createMemoryPacer(bytesPerCollection = DEFAULT_BYTES_PER_COLLECTION): MemoryPacer {
  let sinceLast = 0;
  return {
    note(bytes) {
      if (bytesPerCollection <= 0) return;
      sinceLast += bytes;
      if (sinceLast < bytesPerCollection) return;
      sinceLast = 0;
      // Synchronous: an asynchronous request measured no better than none.
      Bun.gc(true);
    },
  };
}
