import { describe, expect, test } from "bun:test";
import { createManualClock } from "../../../../testkit/manual-clock.ts";
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

  test("confirmed by the database, it counts the time since the last answer; unanswered, it grows and says since when", () => {
    const { clock, advance } = createManualClock();
    const lag = createLagMeter(clock.now);
    lag.read(at(100), false);
    lag.confirm(at(100));
    advance(2_000);
    expect(lag.report()).toEqual({ seconds: 2 });
    lag.confirm(at(102));
    expect(lag.report()).toEqual({ seconds: 2 }); // the database is 2 s ahead of what was read
    lag.read(at(102), false);
    expect(lag.seconds()).toBe(0);
    // Cut off: nothing answers and nothing is read while the application writes on.
    lag.unreachable();
    advance(420_000);
    lag.unreachable();
    expect(lag.report()).toEqual({ seconds: 420, unreachableSeconds: 420 });
    lag.confirm(at(530));
    expect(lag.report()).toEqual({ seconds: 428 }); // answering again, 428 s of oplog still to read
  });

  test("a database down since the start is behind by the time since the start", () => {
    const { clock, advance } = createManualClock();
    const lag = createLagMeter(clock.now);
    advance(30_000);
    lag.unreachable();
    advance(60_000);
    expect(lag.report()).toEqual({ seconds: 90, unreachableSeconds: 60 });
  });
});
