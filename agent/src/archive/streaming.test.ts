// A backup is a stream of unknown, possibly huge length: memory must not grow with it. The
// pipeline runs in a process of its own so that its memory, and only its, is measured. The claim
// is about memory, not speed: each stream is over twice the bound (a pipeline that held it would
// fail), and the time allowed is far past what a loaded 2-core machine needs, so a slow machine
// does not fail it. Throughput is measured by bench/seal-cli.ts.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runIsolated } from "../../../testkit/run-isolated";

const MiB = 1024 * 1024;
const probe = join(import.meta.dir, "streaming-probe.ts");
const ALLOWED_MS = 300_000;
type RoundTrip = { outputBytes: number; sameBytes: boolean; rssGrowthMiB: number };

describe("streaming at bounded memory", () => {
  test(
    "256 MiB through encrypt and decrypt (no compression) grows RSS by well under 100 MiB",
    async () => {
      const result = await runIsolated<RoundTrip>(probe, "measureRoundTrip", [256 * MiB, "none"]);
      expect(result.outputBytes).toBe(256 * MiB);
      expect(result.sameBytes).toBe(true);
      expect(result.rssGrowthMiB).toBeLessThan(100);
    },
    ALLOWED_MS,
  );

  test(
    "256 MiB through zstd, encrypt, decrypt and unzstd grows RSS by well under 100 MiB",
    async () => {
      const result = await runIsolated<RoundTrip>(probe, "measureRoundTrip", [256 * MiB, "zstd"]);
      expect(result.outputBytes).toBe(256 * MiB);
      expect(result.sameBytes).toBe(true);
      expect(result.rssGrowthMiB).toBeLessThan(100);
    },
    ALLOWED_MS,
  );
});
