import { describe, expect, test } from "bun:test";
import { isTokenExpired, readSessionScope, readTokenExpiry } from "./jwt";

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const tokenWith = (claims: Record<string, unknown>) => `${encode({ alg: "HS256", typ: "JWT" })}.${encode(claims)}.signature`;

describe("session expiry from the JWT exp claim", () => {
  test("reads exp as milliseconds", () => {
    expect(readTokenExpiry(tokenWith({ sub: "u1", exp: 1_700_000_000 }))).toBe(1_700_000_000_000);
  });

  test("a token before its exp is live, at or after it expired", () => {
    const token = tokenWith({ exp: 2_000 });
    expect(isTokenExpired(token, 1_999_999)).toBe(false);
    expect(isTokenExpired(token, 2_000_000)).toBe(true);
    expect(isTokenExpired(token, 2_000_001)).toBe(true);
  });

  test("unreadable tokens count as expired (the session is cleared)", () => {
    expect(isTokenExpired("not-a-jwt")).toBe(true);
    expect(isTokenExpired(`${encode({})}.%%%.x`)).toBe(true);
    expect(isTokenExpired(tokenWith({ sub: "no exp" }))).toBe(true);
    expect(readTokenExpiry(tokenWith({ exp: "soon" }))).toBeNull();
  });

  test("handles base64url characters in the payload", () => {
    const token = tokenWith({ exp: 4_102_444_800, name: "ü?>>" });
    expect(isTokenExpired(token, Date.UTC(2025, 0, 1))).toBe(false);
  });
});

describe("a session from single sign-on, from the JWT org claim", () => {
  test("names the organization it is limited to; a password session has none", () => {
    expect(readSessionScope(tokenWith({ sub: "u1", exp: 2_000, org: "team-1" }))).toBe("team-1");
    expect(readSessionScope(tokenWith({ sub: "u1", exp: 2_000 }))).toBeNull();
    expect(readSessionScope(tokenWith({ org: 42 }))).toBeNull();
    expect(readSessionScope("not-a-jwt")).toBeNull();
  });
});
