import { beforeEach, describe, expect, test } from "bun:test";
import { BODIES_AT_ONCE, type BodyGate, createBodyGate } from "./body-gate";

// Each test gets its own gate. Byte counts stay tiny so leave() never runs Bun.gc.
//
// Not tested: a waiter going ahead after MAX_WAIT_MS (10 s) without anyone leaving; that is too
// long for a unit test.

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

type Leave = Awaited<ReturnType<BodyGate["enter"]>>;

let gate: BodyGate;
beforeEach(() => {
  gate = createBodyGate();
});

/** Enters the gate and records whether (and in which order, via `order`) it was admitted. */
function enter(label: string, order: string[] = []) {
  const entry = { admitted: false, leave: undefined as Leave | undefined };
  const promise = gate.enter().then((leave) => {
    entry.admitted = true;
    entry.leave = leave;
    order.push(label);
    return leave;
  });
  return Object.assign(entry, { promise });
}

/** Fills the gate to capacity; every entry is admitted at once. */
async function fillGate(): Promise<Leave[]> {
  return Promise.all(Array.from({ length: BODIES_AT_ONCE }, () => gate.enter()));
}

describe("body gate", () => {
  test(`admits ${BODIES_AT_ONCE} bodies at once; the next waits until one leaves`, async () => {
    const inside = await fillGate();
    const next = enter("next");
    await tick();
    expect(next.admitted).toBe(false);

    inside[0]!(1024);
    await next.promise;
    expect(next.admitted).toBe(true);

    for (const leave of [...inside.slice(1), next.leave!]) leave(1024);
  });

  test("waiters are admitted in the order they came", async () => {
    const inside = await fillGate();
    const order: string[] = [];
    const waiters = ["a", "b", "c"].map((label) => enter(label, order));
    await tick();
    expect(order).toEqual([]);

    inside[0]!(0);
    await tick();
    expect(order).toEqual(["a"]);
    inside[1]!(0);
    await tick();
    expect(order).toEqual(["a", "b"]);
    inside[2]!(0);
    await tick();
    expect(order).toEqual(["a", "b", "c"]);

    for (const waiter of waiters) waiter.leave!(0);
  });

  test("leaving twice frees only one place", async () => {
    const inside = await fillGate();
    const first = enter("first");
    const second = enter("second");
    await tick();

    inside[0]!(0);
    inside[0]!(0); // a second call (e.g. both a failure and a finally path) must not admit another
    await tick();
    expect(first.admitted).toBe(true);
    expect(second.admitted).toBe(false);

    inside[1]!(0);
    await second.promise;
    for (const leave of [inside[2]!, first.leave!, second.leave!]) leave(0);
  });
});
