import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { createManualClock, settle } from "../../../../testkit/manual-clock";
import { createRunningHashes } from "./running-hashes";

const { join: joinRunningHash, drop: dropRunningHash, finish: finishRunningHash } = createRunningHashes();

// The module keeps its running hashes in module-level state, so every test uses its own backup id.
// Waits with a deadline run on a manual clock the test moves: no outcome depends on machine speed.
let nextId = 0;
const uniqueBackupId = () => `running-hash-test-${++nextId}`;

const parts = [Buffer.from("first part of the dump;"), Buffer.from("second part;"), Buffer.from("third and last part")];
const sha256 = (...chunks: Buffer[]) => {
  const hash = createHash("sha256");
  for (const chunk of chunks) hash.update(chunk);
  return hash.digest("hex");
};
const wholeFile = sha256(...parts);

/** Checks that `waiting` still waits 1 ms before `ms` on the manual clock, and answers null at `ms`. */
async function expectNullAfter(waiting: Promise<unknown>, advance: (ms: number) => void, ms: number) {
  const state = track(waiting);
  advance(ms - 1);
  await settle();
  expect(state.settled).toBe(false);
  advance(1);
  expect(await waiting).toBeNull();
}

/** Joins, waits for its turn, feeds `data` and reports it stored: one part received in order. */
async function storePart(backupId: string, partNumber: number, data: Buffer): Promise<void> {
  const turn = joinRunningHash(backupId, partNumber);
  const hash = await turn.ready();
  if (!hash) throw new Error(`part ${partNumber} got no hash to feed`);
  hash.update(data);
  turn.done(true);
}

/** Tracks whether a promise has settled, to check that a waiter is still waiting. */
function track<T>(promise: Promise<T>) {
  const state = { settled: false };
  void promise.then(() => (state.settled = true));
  return state;
}

describe("running hashes", () => {
  test("parts fed in order give the SHA-256 of the whole file", async () => {
    const id = uniqueBackupId();
    for (const [partNumber, data] of parts.entries()) await storePart(id, partNumber, data);
    expect(finishRunningHash(id, parts.length)).toBe(wholeFile);
  });

  test("a part whose ready() comes before its predecessor's waits for it, then extends its hash", async () => {
    const id = uniqueBackupId();
    const turn0 = joinRunningHash(id, 0);
    const turn1 = joinRunningHash(id, 1);
    const ready1 = turn1.ready();
    const ready1State = track(ready1);

    const hash0 = await turn0.ready();
    expect(hash0).not.toBeNull();
    hash0!.update(parts[0]!);
    await settle();
    // Part 0 holds the hash but has not finished: part 1 must not get it yet.
    expect(ready1State.settled).toBe(false);
    turn0.done(true);

    const hash1 = await ready1;
    expect(hash1).not.toBeNull();
    hash1!.update(parts[1]!);
    turn1.done(true);
    await storePart(id, 2, parts[2]!);
    expect(finishRunningHash(id, parts.length)).toBe(wholeFile);
  });

  test("part 1 joining before part 0 of a new backup waits for it, and the file gets its digest", async () => {
    const id = uniqueBackupId();
    const turn1 = joinRunningHash(id, 1); // part 1's request got here first: no running hash yet
    const ready1 = turn1.ready();
    const ready1State = track(ready1);
    await settle();
    expect(ready1State.settled).toBe(false);
    await storePart(id, 0, parts[0]!);
    const hash1 = await ready1;
    expect(hash1).not.toBeNull();
    hash1!.update(parts[1]!);
    turn1.done(true);
    await storePart(id, 2, parts[2]!);
    expect(finishRunningHash(id, parts.length)).toBe(wholeFile);
  });

  test("a part whose predecessor's request arrives late (within the grace) still extends the hash", async () => {
    const id = uniqueBackupId();
    await storePart(id, 0, parts[0]!);
    const turn2 = joinRunningHash(id, 2);
    const { clock, advance } = createManualClock();
    const ready2 = turn2.ready(30_000, 1_000, clock); // part 1 has not arrived yet
    advance(999); // within the grace
    await settle();
    await storePart(id, 1, parts[1]!); // ...and now it does, is hashed and stored
    const hash2 = await ready2;
    expect(hash2).not.toBeNull();
    hash2!.update(parts[2]!);
    turn2.done(true);
    expect(finishRunningHash(id, parts.length)).toBe(wholeFile);
  });

  test("a part after a gap (its predecessor never joined) waits only the arrival grace, and the file gets no digest", async () => {
    const id = uniqueBackupId();
    await storePart(id, 0, parts[0]!);
    const turn2 = joinRunningHash(id, 2); // part 1 never arrives here
    const { clock, advance } = createManualClock();
    // The order wait is 30 s: a missing part is waited for only the (here 50 ms) arrival grace.
    const ready2 = turn2.ready(30_000, 50, clock);
    await expectNullAfter(ready2, advance, 50);
    turn2.done(true); // stored, but unhashed
    expect(finishRunningHash(id, parts.length)).toBeNull();
  });

  test("a failed part leaves the hash as it was, so the part sent again extends it correctly", async () => {
    const id = uniqueBackupId();
    await storePart(id, 0, parts[0]!);

    const failed = joinRunningHash(id, 1);
    const lent = await failed.ready();
    expect(lent).not.toBeNull();
    lent!.update(Buffer.from("half of part 1 before the connection broke"));
    failed.done(false);

    await storePart(id, 1, parts[1]!);
    await storePart(id, 2, parts[2]!);
    expect(finishRunningHash(id, parts.length)).toBe(wholeFile);
  });

  test("a resend of a part already hashed gets null and drops the running hash (its bytes may differ)", async () => {
    const id = uniqueBackupId();
    await storePart(id, 0, parts[0]!);
    await storePart(id, 1, parts[1]!);
    const resend = joinRunningHash(id, 0);
    expect(await resend.ready()).toBeNull();
    resend.done(true);
    // Completion then checksums the stored file itself.
    expect(finishRunningHash(id, 2)).toBeNull();
  });

  test("ready(waitMs) gives up after waitMs while its predecessor has joined but never starts", async () => {
    const id = uniqueBackupId();
    const turn0 = joinRunningHash(id, 0);
    const turn1 = joinRunningHash(id, 1);
    const { clock, advance } = createManualClock();
    const ready1 = turn1.ready(50, 50, clock);
    await expectNullAfter(ready1, advance, 50);
    turn0.done(false);
    turn1.done(false);
    dropRunningHash(id);
  });

  test("ready(waitMs) gives up after waitMs while its predecessor holds the hash and stalls", async () => {
    const id = uniqueBackupId();
    const turn0 = joinRunningHash(id, 0);
    expect(await turn0.ready()).not.toBeNull();
    const turn1 = joinRunningHash(id, 1);
    const { clock, advance } = createManualClock();
    const ready1 = turn1.ready(50, 50, clock);
    await expectNullAfter(ready1, advance, 50);
    turn0.done(false);
    turn1.done(false);
    dropRunningHash(id);
  });

  test("dropping the running hash wakes a waiting part with null", async () => {
    const id = uniqueBackupId();
    const turn0 = joinRunningHash(id, 0);
    const turn1 = joinRunningHash(id, 1);
    const { clock } = createManualClock(); // never advanced: only the drop can wake it
    const ready1 = turn1.ready(undefined, undefined, clock); // would wait up to 30 s for part 0
    const ready1State = track(ready1);
    await settle();
    expect(ready1State.settled).toBe(false);

    dropRunningHash(id);
    expect(await ready1).toBeNull();

    turn0.done(true);
    turn1.done(true);
    // The dropped hash is gone for good: parts finishing afterwards do not bring it back.
    expect(finishRunningHash(id, 2)).toBeNull();
  });

  test("part 0 that fails before feeding anything leaves no running hash behind", () => {
    const id = uniqueBackupId();
    const turn0 = joinRunningHash(id, 0);
    turn0.done(false);
    // done() forgets an entry with nothing hashed and nothing arriving. Were the entry kept,
    // finishRunningHash(id, 0) would see nextPart === 0 === partCount and return the digest of
    // zero bytes (e3b0c442…); with the entry gone it returns null.
    expect(finishRunningHash(id, 0)).toBeNull();
  });
});
