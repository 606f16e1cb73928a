import { expect, test } from "bun:test";
import { inputFromMoment, isCovered, layoutTimeline, momentFromInput, pickerBounds, type Timeline } from "./timeline-layout";

const at = (offset: number) => new Date(Date.UTC(2026, 10, 27, 14, 0, 0) + offset * 1000).toISOString();
const pos = (offset: number) => ({ ts: "1,1", at: at(offset) });
const timeline: Timeline = {
  ranges: [
    { from: pos(0), to: pos(100) },
    { from: pos(200), to: pos(300) },
  ],
  gaps: [{ from: pos(100), to: pos(200), reason: "rollover" }],
  // As the server answers for bases at 10 and 250: from each run's oldest base to the run's end.
  restorable: [
    { from: pos(10), to: pos(100) },
    { from: pos(250), to: pos(300) },
  ],
};
const bases = [at(10), at(250)];

test("a second is accepted after a base inside its range and before the range's last second", () => {
  expect(isCovered(timeline, at(10))).toBe(true);
  expect(isCovered(timeline, at(99))).toBe(true);
  expect(isCovered(timeline, at(5))).toBe(false); // before the oldest base
  expect(isCovered(timeline, at(100))).toBe(false); // the range's last second
  expect(isCovered(timeline, at(150))).toBe(false); // inside the gap
  expect(isCovered(timeline, at(220))).toBe(false); // no base yet in the second range
  expect(isCovered(timeline, at(260))).toBe(true);
  expect(isCovered(timeline, at(300))).toBe(false);
});

test("the picker's bounds run from the oldest usable base to the last covered second", () => {
  expect(pickerBounds(timeline)).toEqual({ min: at(10), max: at(299) });
  expect(pickerBounds({ ...timeline, restorable: [] })).toBeNull();
  // A window inside one second holds no whole second.
  expect(pickerBounds({ ...timeline, restorable: [{ from: { ts: "1,1", at: at(5) }, to: { ts: "1,9", at: at(5) } }] })).toBeNull();
});

test("a datetime-local value to the second is read as local time and written back the same", () => {
  const moment = momentFromInput("2026-11-27T14:37:05")!;
  expect(moment).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  expect(inputFromMoment(moment)).toBe("2026-11-27T14:37:05");
  expect(inputFromMoment(momentFromInput("2026-11-27T14:37")!)).toBe("2026-11-27T14:37:00");
  expect(momentFromInput("")).toBeNull();
  expect(momentFromInput("2026-11-27")).toBeNull();
});

test("the bar draws what can be restored: after a rollover, red runs to the new chain's first base, not its start", () => {
  const { segments, marks } = layoutTimeline(timeline, bases);
  expect(segments.map((s) => [s.kind, Math.round(s.left), Math.round(s.width)])).toEqual([
    ["gap", 0, 3],
    ["covered", 3, 30],
    ["gap", 33, 50],
    ["covered", 83, 17],
  ]);
  expect(marks.map((m) => Math.round(m.left))).toEqual([3, 83]);
});
