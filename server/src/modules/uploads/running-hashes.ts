import { createHash, type Hash } from "node:crypto";
import { UPLOAD_PARTS_IN_FLIGHT } from "@protocol/agent-protocol";
import { type Clock, systemClock } from "@protocol/clock";

// SHA-256 of a whole backup file, fed part by part while parts arrive in order on this instance.
// When they do not (a retry on another instance, a restart), completion re-reads the stored parts.
type RunningHash = {
  nextPart: number;
  hash: Hash;
  /** A part is feeding the hash. */
  busy: boolean;
  /** Parts whose requests are being handled here, whether or not they feed the hash yet. */
  arriving: Map<number, number>;
  /** Resolves at the next change of the fields above (then is replaced). */
  changed: Promise<void>;
  notify(): void;
};

/**
 * How long a part waits for the parts before it to feed the hash. An agent keeps several parts in
 * flight, so part N+1 usually arrives while part N still streams; past this wait (part N's client
 * stalled) it is stored unhashed and completion re-reads the file instead.
 */
export const HASH_ORDER_WAIT_MS = 30_000;

/**
 * How long a part waits for a missing earlier part to arrive: one whose request has not reached
 * this instance yet (requests can overtake each other), or is being sent again after a failure
 * (the agent retries after 1 s). Past it, the part is stored unhashed.
 */
export const HASH_ARRIVAL_GRACE_MS = 2_000;

/** A part's place at its backup's running hash. Call `done` once the part is stored or failed. */
export type HashTurn = {
  /** Waits for the parts before this one (while they are being received here) and lends a copy of the hash, or null. */
  ready(waitMs?: number, arrivalGraceMs?: number, clock?: Clock): Promise<Hash | null>;
  /** `stored`: the lent copy becomes the running hash; otherwise it is dropped (the part sent again can still extend it). */
  done(stored: boolean): void;
};

const noTurn: HashTurn = { ready: async () => null, done() {} };

function newRunningHash(): RunningHash {
  const running = { nextPart: 0, hash: createHash("sha256"), busy: false, arriving: new Map() } as RunningHash;
  const arm = () => {
    running.changed = new Promise<void>((resolve) => {
      running.notify = () => {
        arm();
        resolve();
      };
    });
  };
  arm();
  return running;
}

/**
 * The running hashes of the backups uploading to this instance, one per backup. Built once per
 * app in bootstrap.ts (ctx.runningHashes), so each test server has its own.
 */
export function createRunningHashes() {
  const runningHashes = new Map<string, RunningHash>();

  /**
   * Registers a part's request as it arrives. One of the first UPLOAD_PARTS_IN_FLIGHT parts starts a
   * backup's running hash: the agent sends them together, and part 1's request can reach this point
   * before part 0's (on PostgreSQL the requests' authentication queries run side by side), so part 1
   * must wait for part 0 rather than find no hash. A part with no running hash gets a turn that
   * lends nothing; so does a resend of a part already hashed, which also drops the running hash.
   */
  function joinRunningHash(backupId: string, partNumber: number): HashTurn {
    let running = runningHashes.get(backupId);
    if (!running && partNumber < UPLOAD_PARTS_IN_FLIGHT) {
      running = newRunningHash();
      runningHashes.set(backupId, running);
    }
    if (running && partNumber < running.nextPart) {
      // A part already hashed is sent again, maybe with other bytes: the running hash would no longer
      // describe the stored file, so completion reads the file itself instead.
      dropRunningHash(backupId);
      return noTurn;
    }
    if (!running) return noTurn;
    const entry = running;
    entry.arriving.set(partNumber, (entry.arriving.get(partNumber) ?? 0) + 1);
    entry.notify(); // a later part may be waiting for this one to arrive
    let lent: Hash | null = null;
    let finished = false;
    const current = () => runningHashes.get(backupId) === entry;
    return {
      async ready(waitMs = HASH_ORDER_WAIT_MS, arrivalGraceMs = HASH_ARRIVAL_GRACE_MS, clock = systemClock) {
        const deadline = clock.now() + waitMs;
        const arrivalDeadline = clock.now() + arrivalGraceMs;
        for (;;) {
          if (finished || !current() || partNumber < entry.nextPart) return null;
          if (partNumber === entry.nextPart && !entry.busy) {
            entry.busy = true;
            lent = entry.hash.copy();
            entry.notify();
            return lent;
          }
          // Wait while every part before this one is on its way here; for a missing one, only briefly.
          let missing = false;
          for (let p = entry.nextPart; p < partNumber && !missing; p++) missing = !entry.arriving.has(p);
          const remaining = (missing ? Math.min(deadline, arrivalDeadline) : deadline) - clock.now();
          if (remaining <= 0) return null;
          let cancel = () => {};
          await Promise.race([entry.changed, new Promise<void>((resolve) => (cancel = clock.after(remaining, resolve)))]);
          cancel();
        }
      },
      done(stored) {
        if (finished) return;
        finished = true;
        const count = entry.arriving.get(partNumber) ?? 1;
        if (count > 1) entry.arriving.set(partNumber, count - 1);
        else entry.arriving.delete(partNumber);
        if (lent) {
          // The backup may have failed (and its entry been dropped) while this part was streaming.
          if (stored && current()) {
            entry.hash = lent;
            entry.nextPart++;
          }
          entry.busy = false;
        }
        // Nothing hashed and nothing on its way (e.g. part 0 of a backup this agent cannot upload to): forget it.
        if (entry.nextPart === 0 && !entry.busy && entry.arriving.size === 0 && current()) runningHashes.delete(backupId);
        entry.notify();
      },
    };
  }

  /** Forgets a backup's running hash (it failed or completed); parts still streaming keep their copy. */
  function dropRunningHash(backupId: string): void {
    const running = runningHashes.get(backupId);
    runningHashes.delete(backupId);
    running?.notify(); // waiters look again and find their entry gone
  }

  /** The whole file's SHA-256 when all `partCount` parts fed it, else null; forgets the running hash. */
  function finishRunningHash(backupId: string, partCount: number): string | null {
    const running = runningHashes.get(backupId);
    dropRunningHash(backupId);
    return running && running.nextPart === partCount && !running.busy ? running.hash.digest("hex") : null;
  }

  return { join: joinRunningHash, drop: dropRunningHash, finish: finishRunningHash };
}

export type RunningHashes = ReturnType<typeof createRunningHashes>;
