import { describe, expect, test } from "bun:test";
import { createJobQueue } from "./job-queue.ts";

/** A job that runs until `finish` is called, counting its runs. */
function heldJob() {
  let finish: () => void = () => {};
  const job = {
    runs: 0,
    finish: () => finish(),
    run: () => {
      job.runs++;
      return new Promise<void>((resolve) => (finish = resolve));
    },
  };
  return job;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("the job queue", () => {
  test("runs jobs one at a time, in the order asked", async () => {
    const queue = createJobQueue({ onIdle: () => {} });
    const order: string[] = [];
    const first = heldJob();
    queue.enqueue(() => {
      order.push("first");
      return first.run();
    });
    queue.enqueue(async () => void order.push("second"));
    await settle();
    expect(order).toEqual(["first"]);
    first.finish();
    await settle();
    expect(order).toEqual(["first", "second"]);
  });

  test("ignores a backup sent again while it waits, while it runs, and after it ran", async () => {
    const queue = createJobQueue({ onIdle: () => {} });
    const blocker = heldJob();
    const backup = heldJob();
    expect(queue.enqueue(blocker.run, { backupId: "b0" })).toBe(true);
    expect(queue.enqueue(backup.run, { backupId: "b1" })).toBe(true);
    // Waiting behind b0.
    expect(queue.enqueue(backup.run, { backupId: "b1" })).toBe(false);
    expect(queue.describeQueued()).toEqual({ backupIds: ["b1"], restoreIds: [] });
    blocker.finish();
    await settle();
    // Running.
    expect(queue.enqueue(backup.run, { backupId: "b1" })).toBe(false);
    backup.finish();
    await settle();
    // Done.
    expect(queue.isBusy()).toBe(false);
    expect(queue.enqueue(backup.run, { backupId: "b1" })).toBe(false);
    await settle();
    expect(backup.runs).toBe(1);
  });

  test("ignores a restore sent again; a backup and a restore of the same id are different jobs", async () => {
    const queue = createJobQueue({ onIdle: () => {} });
    expect(queue.enqueue(async () => {}, { restoreId: "x" })).toBe(true);
    expect(queue.enqueue(async () => {}, { restoreId: "x" })).toBe(false);
    expect(queue.enqueue(async () => {}, { backupId: "x" })).toBe(true);
  });

  test("jobs naming no backup or restore are never taken for repeats", async () => {
    const queue = createJobQueue({ onIdle: () => {} });
    let runs = 0;
    const job = async () => void runs++;
    expect(queue.enqueue(job)).toBe(true);
    expect(queue.enqueue(job)).toBe(true);
    await settle();
    expect(runs).toBe(2);
  });

  test("a job of the server's ledger is known by its job id: sent again it is ignored; the heartbeat names it waiting and running", async () => {
    const queue = createJobQueue({ onIdle: () => {} });
    const blocker = heldJob();
    const verify = heldJob();
    queue.enqueue(blocker.run, { backupId: "b0" });
    expect(queue.enqueue(verify.run, { jobId: "j1" })).toBe(true);
    expect(queue.enqueue(verify.run, { jobId: "j1" })).toBe(false);
    expect(queue.describeQueued()).toEqual({ backupIds: [], restoreIds: [], jobIds: ["j1"] });
    blocker.finish();
    await settle();
    // Running: still named, so that its lease runs on while it reads a large backup back.
    expect(queue.describeQueued()).toEqual({ backupIds: [], restoreIds: [], jobIds: ["j1"] });
    expect(queue.holds({ jobId: "j1" })).toBe(true);
    verify.finish();
    await settle();
    expect(queue.describeQueued()).toBeUndefined();
    expect(queue.enqueue(verify.run, { jobId: "j1" })).toBe(false);
    // A new job of the same backup (verified again) runs.
    expect(queue.enqueue(verify.run, { jobId: "j2" })).toBe(true);
    await settle();
    verify.finish();
    expect(verify.runs).toBe(2);
  });

  test("remembers the last thousand ids taken, not every one", async () => {
    const queue = createJobQueue({ onIdle: () => {} });
    for (let i = 0; i <= 1_000; i++) queue.enqueue(async () => {}, { backupId: `b${i}` });
    await settle();
    expect(queue.isBusy()).toBe(false);
    // b0 is the 1,001st from the end: forgotten, so taken again; b1 is still remembered.
    expect(queue.enqueue(async () => {}, { backupId: "b1" })).toBe(false);
    expect(queue.enqueue(async () => {}, { backupId: "b0" })).toBe(true);
  });

  test("the hello's list names the backups and restores this process took, running and waiting ones included", async () => {
    const queue = createJobQueue({ onIdle: () => {} });
    expect(queue.describeTaken()).toEqual({ backupIds: [], restoreIds: [] });
    queue.enqueue(async () => {}, { backupId: "done" });
    await settle();
    const running = heldJob();
    queue.enqueue(running.run, { restoreId: "running" });
    queue.enqueue(async () => {}, { backupId: "waiting" });
    queue.enqueue(async () => {});
    expect(queue.describeTaken()).toEqual({ backupIds: ["done", "waiting"], restoreIds: ["running"] });
    running.finish();
  });

  test("the hello's list keeps to the protocol's 100 of each, the newest", async () => {
    const queue = createJobQueue({ onIdle: () => {} });
    for (let i = 0; i < 150; i++) queue.enqueue(async () => {}, { backupId: `b${i}` });
    await settle();
    const { backupIds } = queue.describeTaken();
    expect(backupIds).toHaveLength(100);
    expect(backupIds[0]).toBe("b50");
    expect(backupIds.at(-1)).toBe("b149");
  });

  test("a job cleared before it ran may be taken again", async () => {
    const queue = createJobQueue({ onIdle: () => {} });
    const blocker = heldJob();
    queue.enqueue(blocker.run, { backupId: "running" });
    queue.enqueue(async () => {}, { backupId: "waiting" });
    queue.clear();
    expect(queue.enqueue(async () => {}, { backupId: "running" })).toBe(false);
    expect(queue.enqueue(async () => {}, { backupId: "waiting" })).toBe(true);
    blocker.finish();
  });
});
