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
};
const bases = [at(10), at(250)];

test("a second is accepted after a base inside its range and before the range's last second", () => {
  expect(isCovered(timeline, bases, at(10))).toBe(true);
  expect(isCovered(timeline, bases, at(99))).toBe(true);
  expect(isCovered(timeline, bases, at(5))).toBe(false); // before the oldest base
  expect(isCovered(timeline, bases, at(100))).toBe(false); // the range's last second
  expect(isCovered(timeline, bases, at(150))).toBe(false); // inside the gap
  expect(isCovered(timeline, bases, at(220))).toBe(false); // no base yet in the second range
  expect(isCovered(timeline, bases, at(260))).toBe(true);
  expect(isCovered(timeline, bases, at(300))).toBe(false);
});

test("the picker's bounds run from the oldest usable base to the last covered second", () => {
  expect(pickerBounds(timeline, bases)).toEqual({ min: at(10), max: at(299) });
  expect(pickerBounds(timeline, [])).toBeNull();
});

test("a datetime-local value to the second is read as local time and written back the same", () => {
  const moment = momentFromInput("2026-11-27T14:37:05")!;
  expect(moment).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  expect(inputFromMoment(moment)).toBe("2026-11-27T14:37:05");
  expect(inputFromMoment(momentFromInput("2026-11-27T14:37")!)).toBe("2026-11-27T14:37:00");
  expect(momentFromInput("")).toBeNull();
  expect(momentFromInput("2026-11-27")).toBeNull();
});

test("the bar places ranges, gaps in between and base marks by time", () => {
  const { segments, marks } = layoutTimeline(timeline, bases);
  expect(segments.map((s) => [s.kind, Math.round(s.left), Math.round(s.width)])).toEqual([
    ["covered", 0, 33],
    ["covered", 67, 33],
    ["gap", 33, 33],
  ]);
  expect(marks.map((m) => Math.round(m.left))).toEqual([3, 83]);
});
