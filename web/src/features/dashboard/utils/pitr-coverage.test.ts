import { describe, expect, test } from "bun:test";
import { formatDateTimeToSecond } from "../../../lib/format-date";
import { describePitrCoverage } from "./pitr-coverage";

const at = (iso: string) => ({ at: iso });
const range = { from: at("2026-03-01T10:00:00.000Z"), to: at("2026-03-01T11:59:50.000Z") };
// The base backup at 10:05: the first second that can be restored, not the chain's start.
const window = { from: at("2026-03-01T10:05:00.000Z"), to: at("2026-03-01T11:59:50.000Z") };
const shipped = { ranges: [range], gaps: [], restorable: [window], lagSeconds: 4, unreachableSince: null };
const now = Date.parse("2026-03-01T12:00:00.000Z");

describe("the dashboard's point-in-time line", () => {
  test("covered from the first restorable second to the last, as the wizard offers them", () => {
    // 11:59:50 itself is not whole yet (an ISO time means its whole second): 11:59:49 is, 11 s ago,
    // whatever lag the agent reports.
    expect(describePitrCoverage(shipped, now)).toEqual({
      text: `Point-in-time: covered from ${formatDateTimeToSecond("2026-03-01T10:05:00.000Z")} to 11 s ago`,
      warning: null,
    });
    expect(describePitrCoverage({ ...shipped, lagSeconds: null }, now).text).toEndWith("to 11 s ago");
  });

  test("a database the agent cannot reach is said so, since when", () => {
    const cut = describePitrCoverage({ ...shipped, lagSeconds: 130, unreachableSince: "2026-03-01T11:57:50.000Z" }, now);
    expect(cut.warning).toBe(
      `The agent can't reach the database since ${formatDateTimeToSecond("2026-03-01T11:57:50.000Z")}: writes made since then cannot be restored until it reaches it again. Check that the database is running and reachable from the agent's machine.`,
    );
  });

  test("past 5 minutes behind, a lag warning; else the newest gap", () => {
    expect(describePitrCoverage({ ...shipped, lagSeconds: 420 }, now).warning).toStartWith("Shipping is 7 min behind");
    // No fresh report, and the newest restorable second is 10 minutes old: behind too.
    const old = { from: window.from, to: at("2026-03-01T11:50:01.000Z") };
    expect(describePitrCoverage({ ...shipped, restorable: [old], lagSeconds: null }, now).warning).toStartWith("Shipping is 10 min behind");
    // The new chain starts at 10:00 but its first base is at 10:05: the gap runs to 10:05.
    const gap = { from: at("2026-03-01T09:00:00.000Z"), to: at("2026-03-01T10:00:00.000Z"), reason: "rollover" as const };
    expect(describePitrCoverage({ ...shipped, gaps: [gap], lagSeconds: 1 }, now).warning).toBe(
      `Gap from ${formatDateTimeToSecond("2026-03-01T09:00:00.000Z")} to ${formatDateTimeToSecond("2026-03-01T10:05:00.000Z")} (the oplog rolled over): times inside it cannot be restored.`,
    );
  });

  test("nothing shipped yet, or nothing to restore from yet", () => {
    const none = { ranges: [], gaps: [], restorable: [], lagSeconds: null, unreachableSince: null };
    expect(describePitrCoverage(none, now).text).toBe("Point-in-time: waiting for the agent's first shipped oplog slice");
    expect(describePitrCoverage({ ...none, ranges: [range] }, now).text).toBe("Point-in-time: oplog shipped, waiting for a completed backup to restore from");
  });
});
