import { expect, test } from "bun:test";
import { FIRST_RETRY_MS, MAX_RETRY_GAP_MS, RETRY_JITTER, retryDelay } from "./deliveries";

test("the wait doubles from 30 s up to an hour, plus at most RETRY_JITTER of it", () => {
  expect([1, 2, 3, 4].map((attempts) => retryDelay(attempts, 0))).toEqual([30_000, 60_000, 120_000, 240_000]);
  expect(retryDelay(1, 0)).toBe(FIRST_RETRY_MS);
  expect(retryDelay(20, 0)).toBe(MAX_RETRY_GAP_MS);
  expect(retryDelay(1, 0.999_999)).toBeLessThanOrEqual(FIRST_RETRY_MS * (1 + RETRY_JITTER));
  expect(retryDelay(20, 0.999_999)).toBeLessThanOrEqual(MAX_RETRY_GAP_MS * (1 + RETRY_JITTER));
  expect(retryDelay(20, 0.5)).toBe(3_960_000);
});

test("deliveries that failed together are spread out, not retried in the same second", () => {
  const waits = new Set(Array.from({ length: 50 }, () => Math.floor(retryDelay(3) / 1000)));
  // 120 s plus up to 24 s of jitter: fifty draws land on many different seconds.
  expect(waits.size).toBeGreaterThan(10);
  for (const seconds of waits) expect(seconds).toBeGreaterThanOrEqual(120);
});
