import { describe, expect, test } from "bun:test";
import { lockUntil } from "./lock-until";
import type { RetentionPolicy } from "./policy";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const gfs: RetentionPolicy = { mode: "gfs", daily: 7, weekly: 4, monthly: 6, limitHours: 24 * 400 };
const at = (iso: string) => new Date(iso);

describe("lockUntil: how long storage must keep a backup its rule keeps", () => {
  test("age: until the retention has passed", () => {
    expect(lockUntil(at("2026-03-10T12:00:00Z"), ["retention"], { mode: "age", hours: 72 }, at("2026-03-10T13:00:00Z"))).toEqual(at("2026-03-13T12:00:00Z"));
  });

  test("a lock already over, or only count-bound reasons (newest, last-verified, last-good), give none", () => {
    expect(lockUntil(at("2026-03-01T12:00:00Z"), ["retention", "newest"], { mode: "age", hours: 24 }, at("2026-03-10T00:00:00Z"))).toBeNull();
    expect(lockUntil(at("2026-03-10T12:00:00Z"), ["newest", "last-verified", "last-good"], gfs, at("2026-03-10T13:00:00Z"))).toBeNull();
  });

  test("GFS: the last day whole, then a daily pick once its day is over, for the daily rule's days", () => {
    const created = at("2026-03-10T12:00:00Z"); // a Tuesday
    expect(lockUntil(created, ["recent", "daily"], gfs, at("2026-03-10T13:00:00Z"))).toEqual(at("2026-03-11T12:00:00Z"));
    expect(lockUntil(created, ["recent", "daily"], gfs, at("2026-03-11T00:00:00Z"))).toEqual(at("2026-03-17T00:00:00Z"));
  });

  test("GFS: a weekly pick once its ISO week is over, a monthly one once its month is over", () => {
    const created = at("2026-03-10T12:00:00Z"); // week of Monday 2026-03-09
    expect(lockUntil(created, ["weekly"], gfs, at("2026-03-15T23:59:59Z"))).toBeNull();
    expect(lockUntil(created, ["weekly"], gfs, at("2026-03-16T00:00:00Z"))).toEqual(at("2026-04-06T00:00:00Z"));
    expect(lockUntil(created, ["monthly"], gfs, at("2026-03-31T00:00:00Z"))).toBeNull();
    expect(lockUntil(created, ["monthly"], gfs, at("2026-04-01T00:00:00Z"))).toEqual(at("2026-09-01T00:00:00Z"));
  });

  test("GFS: never past the plan's limit", () => {
    const created = at("2026-03-10T12:00:00Z");
    expect(lockUntil(created, ["monthly"], { ...gfs, limitHours: 24 * 30 }, at("2026-04-01T00:00:00Z"))).toEqual(new Date(created.getTime() + 30 * DAY));
  });
});
