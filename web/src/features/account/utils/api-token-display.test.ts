import { describe, expect, test } from "bun:test";
import { describeExpiry, describeLastUsed } from "./api-token-display";

describe("API token list texts", () => {
  test("a token never used says so", () => {
    expect(describeLastUsed(null)).toBe("Never");
    expect(describeLastUsed("2026-03-01T10:05:00Z")).toMatch(/^Mar 1, 2026, \d+:05 (AM|PM)$/);
  });

  test("an expired token says it has expired; a valid one when it will", () => {
    const now = new Date("2026-03-01T00:00:00Z");
    expect(describeExpiry("2026-02-28T12:00:00Z", now)).toMatchObject({ expired: true, text: expect.stringMatching(/^Expired Feb 28, 2026/) });
    expect(describeExpiry("2026-03-31T12:00:00Z", now)).toMatchObject({ expired: false, text: expect.stringMatching(/^Expires Mar 31, 2026/) });
  });
});
