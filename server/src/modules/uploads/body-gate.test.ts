import { beforeEach, describe, expect, test } from "bun:test";
import { createManualClock, settle } from "../../../../testkit/manual-clock";
import { BODIES_AT_ONCE, type BodyGate, createBodyGate, MAX_WAIT_MS } from "./body-gate";

// Each test gets its own gate, on a clock the test moves itself, so no outcome depends on how
// fast the machine is. Byte counts stay tiny so leave() never runs Bun.gc.

type Leave = Awaited<ReturnType<BodyGate["enter"]>>;

let gate: BodyGate;
let clock: ReturnType<typeof createManualClock>;
beforeEach(() => {
  clock = createManualClock();
  gate = createBodyGate(clock.clock);
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
    await settle();
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
    await settle();
    expect(order).toEqual([]);

    inside[0]!(0);
    await settle();
    expect(order).toEqual(["a"]);
    inside[1]!(0);
    await settle();
    expect(order).toEqual(["a", "b"]);
    inside[2]!(0);
    await settle();
    expect(order).toEqual(["a", "b", "c"]);

    for (const waiter of waiters) waiter.leave!(0);
  });

  test("leaving twice frees only one place", async () => {
    const inside = await fillGate();
    const first = enter("first");
    const second = enter("second");
    await settle();

    inside[0]!(0);
    inside[0]!(0); // a second call (e.g. both a failure and a finally path) must not admit another
    await settle();
    expect(first.admitted).toBe(true);
    expect(second.admitted).toBe(false);

    inside[1]!(0);
    await second.promise;
    for (const leave of [inside[2]!, first.leave!, second.leave!]) leave(0);
  });

  test(`a waiter goes ahead after ${MAX_WAIT_MS / 1000} s even if nobody leaves; its timer is dropped when admitted normally`, async () => {
    const inside = await fillGate();
    const patient = enter("patient");
    await settle();
    clock.advance(MAX_WAIT_MS / 2);
    const later = enter("later");
    await settle();
    expect(clock.scheduled()).toBe(2);

    clock.advance(MAX_WAIT_MS / 2 - 1);
    await settle();
    expect(patient.admitted).toBe(false);
    clock.advance(1);
    await patient.promise;
    await settle();
    expect(later.admitted).toBe(false); // its own wait is only half over
    // The patient one went ahead over capacity: two must leave before the next is admitted.
    inside[0]!(0);
    await settle();
    expect(later.admitted).toBe(false);
    inside[1]!(0);
    await later.promise;
    expect(clock.scheduled()).toBe(0);
    for (const leave of [inside[2]!, patient.leave!, later.leave!]) leave(0);
  });
});
