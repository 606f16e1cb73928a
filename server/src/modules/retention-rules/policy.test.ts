import { describe, expect, test } from "bun:test";
import { decideRetention, isoWeekKey, type RetentionCandidate, type RetentionDecision, shortestKeep } from "./policy";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = new Date("2026-03-18T12:00:00Z"); // a Wednesday

let counter = 0;
function backup(createdAt: Date | string, extra: Partial<RetentionCandidate> = {}): RetentionCandidate {
  return {
    id: `b${String(++counter).padStart(4, "0")}`,
    databaseName: "shop",
    status: "completed",
    createdAt: new Date(createdAt),
    verification: null,
    anomaly: "none",
    ...extra,
  };
}
/** One backup a day at 02:00 UTC for `days` days back from NOW (newest first). */
const daily = (days: number, extra: Partial<RetentionCandidate> = {}) =>
  Array.from({ length: days }, (_, i) => backup(new Date(Date.UTC(2026, 2, 18 - i, 2)), extra));
const kept = (decisions: Map<string, RetentionDecision>, list: RetentionCandidate[]) =>
  list.filter((b) => decisions.get(b.id)!.keep).map((b) => b.createdAt.toISOString().slice(0, 10));
const reasonsOf = (decisions: Map<string, RetentionDecision>, b: RetentionCandidate) => {
  const decision = decisions.get(b.id)!;
  return decision.keep ? decision.reasons : [decision.reason];
};

describe("ISO weeks", () => {
  test("follow ISO 8601 at year boundaries", () => {
    expect(isoWeekKey(new Date("2026-01-01T00:00:00Z"))).toBe("2026-W01"); // Thursday
    expect(isoWeekKey(new Date("2027-01-01T00:00:00Z"))).toBe("2026-W53"); // Friday: week of 2026
    expect(isoWeekKey(new Date("2024-12-30T00:00:00Z"))).toBe("2025-W01"); // Monday
    expect(isoWeekKey(new Date("2026-03-15T23:59:59Z"))).toBe("2026-W11"); // Sunday
    expect(isoWeekKey(new Date("2026-03-16T00:00:00Z"))).toBe("2026-W12"); // Monday
  });
});

describe("age retention", () => {
  test("keeps what is younger than the retention, and always the newest completed backup", () => {
    const list = [backup(new Date(NOW.getTime() - 400 * HOUR)), backup(new Date(NOW.getTime() - 100 * HOUR)), backup(new Date(NOW.getTime() - 10 * HOUR))];
    const decisions = decideRetention(list, { mode: "age", hours: 72 }, NOW);
    expect(list.map((b) => reasonsOf(decisions, b))).toEqual([["expired"], ["expired"], ["newest", "retention"]]);
    const old = [backup(new Date(NOW.getTime() - 900 * HOUR))];
    expect(reasonsOf(decideRetention(old, { mode: "age", hours: 72 }, NOW), old[0]!)).toEqual(["newest"]);
  });

  test("each database is decided on its own", () => {
    const list = [backup(new Date(NOW.getTime() - 400 * HOUR), { databaseName: "a" }), backup(new Date(NOW.getTime() - 300 * HOUR), { databaseName: "b" })];
    const decisions = decideRetention(list, { mode: "age", hours: 72 }, NOW);
    expect(list.map((b) => decisions.get(b.id)!.keep)).toEqual([true, true]);
  });
});

describe("GFS retention", () => {
  test("keeps the newest backup of each of the last N days, weeks and months", () => {
    const list = daily(120);
    const decisions = decideRetention(list, { mode: "gfs", daily: 3, weekly: 2, monthly: 3, limitHours: 365 * 24 }, NOW);
    // Days: 18, 17, 16 March. Weeks: W12 (newest: 18 March), W11 (newest: Sunday 15 March).
    // Months: March (18), February (28), January (31).
    expect(kept(decisions, list)).toEqual(["2026-03-18", "2026-03-17", "2026-03-16", "2026-03-15", "2026-02-28", "2026-01-31"]);
    expect(reasonsOf(decisions, list[0]!)).toEqual(["newest", "recent", "daily", "weekly", "monthly"]);
    expect(reasonsOf(decisions, list[3]!)).toEqual(["weekly"]);
    expect(reasonsOf(decisions, list[4]!)).toEqual(["not-selected"]);
  });

  test("intraday backups of the last 24 hours stay; older ones thin out to one a day", () => {
    const hourly = Array.from({ length: 72 }, (_, i) => backup(new Date(NOW.getTime() - i * HOUR - 1000)));
    const decisions = decideRetention(hourly, { mode: "gfs", daily: 3, weekly: 0, monthly: 0, limitHours: 30 * 24 }, NOW);
    const keptHours = hourly.filter((b) => decisions.get(b.id)!.keep).map((b) => Math.round((NOW.getTime() - b.createdAt.getTime()) / HOUR));
    // The last 24 hours whole, then the newest of each earlier day: 23:59:59 on 16 March is 36 hours back.
    expect(keptHours).toEqual([...Array.from({ length: 24 }, (_, i) => i), 36]);
    // 23:59:59 yesterday, 12 hours back: both in the last day and yesterday's newest.
    expect(reasonsOf(decisions, hourly[12]!)).toEqual(["recent", "daily"]);
  });

  test("nothing older than the plan's retention limit, except the protected backups", () => {
    const list = daily(60);
    const decisions = decideRetention(list, { mode: "gfs", daily: 0, weekly: 0, monthly: 3, limitHours: 7 * 24 }, NOW);
    expect(kept(decisions, list)).toEqual(["2026-03-18"]);
    expect(reasonsOf(decisions, list.find((b) => b.createdAt.toISOString().startsWith("2026-02-28"))!)).toEqual(["beyond-plan"]);
  });

  test("failed backups (history only) stay for the daily window", () => {
    const list = [
      backup(new Date(NOW.getTime() - 2 * DAY), { status: "failed" }),
      backup(new Date(NOW.getTime() - 5 * DAY), { status: "failed" }),
      backup(NOW),
    ];
    const decisions = decideRetention(list, { mode: "gfs", daily: 3, weekly: 0, monthly: 0, limitHours: 30 * 24 }, NOW);
    expect(list.map((b) => decisions.get(b.id)!.keep)).toEqual([true, false, true]);
    expect(reasonsOf(decisions, list[1]!)).toEqual(["expired"]);
  });
});

describe("protected backups", () => {
  test("the newest verified backup stays when newer ones failed verification", () => {
    const list = [
      backup(new Date(NOW.getTime() - 300 * HOUR), { verification: "ok" }),
      backup(new Date(NOW.getTime() - 200 * HOUR), { verification: "failed" }),
      backup(new Date(NOW.getTime() - 100 * HOUR), { verification: "failed" }),
    ];
    const decisions = decideRetention(list, { mode: "age", hours: 72 }, NOW);
    expect(list.map((b) => reasonsOf(decisions, b))).toEqual([["last-verified"], ["expired"], ["newest"]]);
  });

  test("while an anomaly is unresolved the newest good backup before the oldest anomaly stays", () => {
    const list = [
      backup(new Date(NOW.getTime() - 500 * HOUR)),
      backup(new Date(NOW.getTime() - 400 * HOUR), { verification: "failed" }),
      backup(new Date(NOW.getTime() - 300 * HOUR), { anomaly: "unresolved" }),
      backup(new Date(NOW.getTime() - 200 * HOUR), { anomaly: "unresolved" }),
      backup(new Date(NOW.getTime() - 100 * HOUR)),
    ];
    const decisions = decideRetention(list, { mode: "gfs", daily: 1, weekly: 0, monthly: 0, limitHours: 72 }, NOW);
    expect(list.map((b) => reasonsOf(decisions, b)[0])).toEqual(["last-good", "not-selected", "not-selected", "not-selected", "newest"]);
    const resolved = list.map((b) => (b.anomaly === "unresolved" ? { ...b, anomaly: "resolved" as const } : b));
    expect(decideRetention(resolved, { mode: "age", hours: 72 }, NOW).get(list[0]!.id)).toEqual({ keep: false, reason: "expired" });
  });
});

test("the shortest keep a copy's lock must cover: the age, or a daily pick's days within the plan", () => {
  expect(shortestKeep({ mode: "age", hours: 30 * 24 })).toEqual({ days: 30, rule: "backups are kept 30 days" });
  expect(shortestKeep({ mode: "age", hours: 12 })).toEqual({ days: 1, rule: "backups are kept 1 day" });
  expect(shortestKeep({ mode: "gfs", daily: 7, weekly: 4, monthly: 12, limitHours: 365 * 24 })).toEqual({
    days: 7,
    rule: "a daily backup is kept 7 days (grandfather-father-son)",
  });
  expect(shortestKeep({ mode: "gfs", daily: 14, weekly: 0, monthly: 0, limitHours: 3 * 24 }).days).toBe(3);
});
