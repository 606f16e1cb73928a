import { describe, expect, test } from "bun:test";
import { shortensRetention } from "./retention-shortening";

const age = (hours: number) => ({ mode: "age" as const, hours });
const gfs = (daily: number, weekly: number, monthly: number, limitHours = 8760) => ({ mode: "gfs" as const, daily, weekly, monthly, limitHours });

describe("shortensRetention", () => {
  test("age: fewer hours shortens, as many or more does not", () => {
    expect(shortensRetention(age(720), age(168))).toBe(true);
    expect(shortensRetention(age(720), age(720))).toBe(false);
    expect(shortensRetention(age(168), age(720))).toBe(false);
  });
  test("age to GFS always shortens: GFS thins what age kept whole", () => {
    expect(shortensRetention(age(24), gfs(30, 52, 12))).toBe(true);
  });
  test("GFS to age shortens unless the age reaches as far as GFS could keep", () => {
    expect(shortensRetention(gfs(7, 4, 12, 8760), age(720))).toBe(true);
    expect(shortensRetention(gfs(7, 4, 12, 8760), age(8760))).toBe(false);
  });
  test("GFS: any count or the plan's limit going down shortens", () => {
    expect(shortensRetention(gfs(7, 4, 12), gfs(7, 4, 12))).toBe(false);
    expect(shortensRetention(gfs(7, 4, 12), gfs(14, 8, 24))).toBe(false);
    expect(shortensRetention(gfs(7, 4, 12), gfs(6, 8, 24))).toBe(true);
    expect(shortensRetention(gfs(7, 4, 12), gfs(7, 3, 12))).toBe(true);
    expect(shortensRetention(gfs(7, 4, 12), gfs(7, 4, 11))).toBe(true);
    expect(shortensRetention(gfs(7, 4, 12, 8760), gfs(7, 4, 12, 720))).toBe(true);
  });
});
