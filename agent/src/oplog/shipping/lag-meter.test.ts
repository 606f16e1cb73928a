import { describe, expect, test } from "bun:test";
import { createLagMeter } from "./lag-meter.ts";

const at = (t: number, i = 1) => ({ t, i });

describe("the shipping lag meter", () => {
  test("grows while the database's entries wait, and is 0 once the server stored them", () => {
    const lag = createLagMeter();
    lag.read(at(100), true);
    lag.read(at(130), true);
    expect(lag.seconds()).toBe(30);
    lag.shipped({ entries: 1, end: at(120) });
    expect(lag.seconds()).toBe(10);
    lag.shipped({ entries: 1, end: at(131) });
    expect(lag.seconds()).toBe(0);
  });

  test("other databases' entries and an idle database are no lag", () => {
    const lag = createLagMeter();
    lag.read(at(100), false);
    lag.read(at(400), false);
    expect(lag.seconds()).toBe(0);
    // The first entry of the database after a long idle time starts at 0, not at the last one read.
    lag.read(at(500), true);
    expect(lag.seconds()).toBe(0);
    lag.read(at(505), false);
    expect(lag.seconds()).toBe(5);
  });

  test("slices spooled by an earlier run count from their start; a restart counts again", () => {
    const lag = createLagMeter();
    lag.waiting({ entries: 3, start: at(50) });
    lag.read(at(80), false);
    expect(lag.seconds()).toBe(30);
    lag.restart();
    expect(lag.seconds()).toBe(0);
  });
});
