// Keeps a long stream at flat memory. Every byte of a backup passes through several short-lived
// buffers (driver replies, archive chunks, compression blocks and their output, ciphertext), and
// Bun's collector (JavaScriptCore), which sizes its heap from the machine's RAM, lets that
// garbage pile up to hundreds of MB before collecting: the memory is garbage, not leaks.
// Measured on a 200 MB dump through the compiled agent: peak RSS 210-260 MB without pacing,
// 105-135 MB with a full collection every 2-4 MiB (bench/dump-memory.ts).
//
// A full collection costs up to ~20 ms with the driver loaded, so collecting every 4 MiB cost a
// 222 MB dump ~0.7 s of CPU. The pacers therefore look at the resident set every 4 MiB and
// collect only once it has grown by a margin since the last collection, whichever pacer of the
// process ran it (a dump paces both its archive and its encryption). Measured on that dump
// (2 collections at once): margin 0 → 131 MB peak, 4.2 s CPU; 8 MiB → 137 MB, 3.5 s;
// 24 MiB → ~160 MB, 3.0 s. The daemon's budget is 150 MB, so the margin stays small.

const CHECK_EVERY_BYTES = 1024 * 1024;
const ALLOWED_GROWTH_BYTES = 8 * 1024 * 1024;
/**
 * The built-in dump's margin. Its cursor batches reach the archive as the replies' bytes (no
 * object or Buffer per document), so what it leaves to the collector is a few large buffers per
 * MiB (driver replies, compressed blocks, sealed frames) and a wider margin is enough. Measured
 * on a 100 MB dump run from source (AMD, under load): 8 MiB → 108 MB peak, 2.1 s CPU; 24 MiB →
 * 125 MB, 1.75 s; 40 MiB → 143 MB; none → 168 MB. The daemon's 300 MB backup peaked at 140 MB.
 */
export const DUMP_ALLOWED_GROWTH_BYTES = 24 * 1024 * 1024;

// The resident set after the last collection (or the smallest seen when a pacer started).
let baseline = Number.POSITIVE_INFINITY;

export interface MemoryPacer {
  /** Counts processed bytes; collects garbage when the resident set has grown past the margin. */
  note(bytes: number): void;
}

/**
 * Returns a pacer that checks the resident set every `checkEveryBytes` and collects when it grew
 * by `allowedGrowthBytes` since the pacer started or last collected (0 turns pacing off); never throws.
 */
export function createMemoryPacer(checkEveryBytes = CHECK_EVERY_BYTES, allowedGrowthBytes = ALLOWED_GROWTH_BYTES): MemoryPacer {
  let sinceCheck = 0;
  baseline = Math.min(baseline, process.memoryUsage.rss());
  return {
    note(bytes) {
      if (checkEveryBytes <= 0) return;
      sinceCheck += bytes;
      if (sinceCheck < checkEveryBytes) return;
      sinceCheck = 0;
      if (process.memoryUsage.rss() - baseline < allowedGrowthBytes) return;
      // Synchronous: an asynchronous request measured no better than none.
      Bun.gc(true);
      baseline = process.memoryUsage.rss();
    },
  };
}

/**
 * Collects garbage now and takes the resident set after it as the pacers' baseline. For the
 * boundary between two jobs (a backup's upload and its verification): the first job's buffers are
 * all garbage then, and the next job would otherwise start on top of them. Never throws.
 */
export function collectGarbageNow(): void {
  Bun.gc(true);
  baseline = process.memoryUsage.rss();
}
