import { describe, expect, test } from "bun:test";
import { formatDateTimeToSecond } from "../../../lib/format-date";
import { describePitrCoverage } from "./pitr-coverage";

const at = (iso: string) => ({ at: iso });
const range = { from: at("2026-03-01T10:00:00.000Z"), to: at("2026-03-01T11:59:50.000Z") };
const now = Date.parse("2026-03-01T12:00:00.000Z");

describe("the dashboard's point-in-time line", () => {
  test("covered from the newest range's start to the agent's reported lag", () => {
    expect(describePitrCoverage({ ranges: [range], gaps: [], lagSeconds: 4 }, now)).toEqual({
      text: `Point-in-time: covered from ${formatDateTimeToSecond("2026-03-01T10:00:00.000Z")} to 4 s ago`,
      warning: null,
    });
  });

  test("without a recent report, from the newest slice's end", () => {
    expect(describePitrCoverage({ ranges: [range], gaps: [], lagSeconds: null }, now).text).toEndWith("to 10 s ago");
  });

  test("past 5 minutes behind, a lag warning; else the newest gap", () => {
    expect(describePitrCoverage({ ranges: [range], gaps: [], lagSeconds: 420 }, now).warning).toStartWith("Shipping is 7 min behind");
    const gap = { from: at("2026-03-01T09:00:00.000Z"), to: at("2026-03-01T10:00:00.000Z"), reason: "rollover" as const };
    expect(describePitrCoverage({ ranges: [range], gaps: [gap], lagSeconds: 1 }, now).warning).toContain(
      "(the oplog rolled over): times inside it cannot be restored",
    );
  });

  test("nothing shipped yet", () => {
    expect(describePitrCoverage({ ranges: [], gaps: [], lagSeconds: null }, now).text).toBe("Point-in-time: waiting for the agent's first shipped oplog slice");
  });
});
