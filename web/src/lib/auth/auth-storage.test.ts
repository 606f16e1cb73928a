import { afterAll, afterEach, expect, test } from "bun:test";
import { AUTH_STORAGE_KEY } from "../../config/constants";
import { readAuthRecord, writeAuthRecord } from "./auth-storage";

// Bun has no localStorage; a Map-backed one stands in for the browser's (the e2e tests use Chromium's).
const items = new Map<string, string>();
(globalThis as { window?: unknown }).window = {
  localStorage: {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => items.set(key, value),
    removeItem: (key: string) => items.delete(key),
  },
};
afterEach(() => items.clear());
// Later test files in the same process must not see this partial window (no location, no document).
afterAll(() => delete (globalThis as { window?: unknown }).window);

test("the API key is never written to storage; a record read back has an empty key to fetch", () => {
  const user = { id: "u1", email: "a@example.com", name: "A", role: "user", apiKey: "dbv_secret-key-value", isBanned: false, banReason: null, bannedAt: null };
  writeAuthRecord("token-1", user as never);
  const raw = items.get(AUTH_STORAGE_KEY)!;
  expect(raw).not.toContain("dbv_secret-key-value");
  expect(JSON.parse(raw).user).toMatchObject({ id: "u1", email: "a@example.com" });
  expect(readAuthRecord()).toMatchObject({ token: "token-1", user: { id: "u1", apiKey: "" } });
});
