import { describe, expect, test } from "bun:test";
import { inWindow, nextSlot, parseTimeOfDay } from "./slots";

const HOUR = 3_600_000;
const day = Date.UTC(2026, 11, 7);
const at = (hours: number) => day + hours * HOUR;

describe("database schedule slots", () => {
  test("HH:MM is parsed strictly", () => {
    expect(parseTimeOfDay("01:30")).toBe(90);
    expect(parseTimeOfDay("23:59")).toBe(1439);
    for (const bad of ["24:00", "1:30", "01:60", "0130", "", "01:30:00"]) expect(parseTimeOfDay(bad)).toBeNull();
  });

  test("a window across midnight holds the minutes on both sides", () => {
    const schedule = { everyHours: 1, timeOfDay: null, window: { start: 22 * 60, end: 2 * 60 } };
    expect(inWindow(schedule, at(23))).toBe(true);
    expect(inWindow(schedule, at(1.5))).toBe(true);
    expect(inWindow(schedule, at(2))).toBe(false);
    expect(inWindow(schedule, at(12))).toBe(false);
  });

  test("hourly slots stay inside the window; daily ones fall on the time of day", () => {
    const hourly = { everyHours: 1, timeOfDay: null, window: { start: 60, end: 240 } };
    expect(nextSlot(hourly, at(3.5), null)).toBe(at(24 + 1));
    expect(nextSlot(hourly, at(1), null)).toBe(at(2));
    const daily = { everyHours: 24, timeOfDay: 150, window: null };
    expect(nextSlot(daily, at(22), null)).toBe(at(24 + 2.5));
    expect(nextSlot(daily, at(1), null)).toBe(at(2.5));
  });

  test("without a time or window the slot keeps its rhythm, never in the past", () => {
    const plain = { everyHours: 24, timeOfDay: null, window: null };
    expect(nextSlot(plain, at(1), at(0.5))).toBe(at(24.5));
    expect(nextSlot(plain, at(100), at(0.5))).toBe(at(124));
  });
});
