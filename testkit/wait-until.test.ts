import { describe, expect, test } from "bun:test";
import { waitUntil } from "./wait-until";

describe("waitUntil", () => {
  test("returns the first value that is not undefined, null or false", async () => {
    let calls = 0;
    const value = await waitUntil(() => (++calls === 3 ? { calls } : calls === 1 ? null : false), { interval: 1 });
    expect(value).toEqual({ calls: 3 });
  });

  test("keeps checking while the condition throws, and returns once it passes", async () => {
    let calls = 0;
    await waitUntil(
      () => {
        calls++;
        expect(calls).toBe(4);
        return true;
      },
      { interval: 1 },
    );
    expect(calls).toBe(4);
  });

  test("times out with the message and the last error", async () => {
    const failing = waitUntil(
      () => {
        throw new Error("still 2 rows");
      },
      { timeout: 30, interval: 5, message: "one row" },
    );
    await expect(failing).rejects.toThrow("timed out after 30 ms waiting for one row: still 2 rows");
  });

  test("a zero value is a value", async () => {
    expect(await waitUntil(() => 0)).toBe(0);
  });
});
