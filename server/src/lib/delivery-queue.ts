// The outgoing queues (webhook deliveries, e-mail) share one mechanism: rows in a table are the
// queue; any instance may send any of them, each claimed with FOR UPDATE SKIP LOCKED and leased
// (lockedUntil) while it is sent, so one instance sends each attempt; a crash mid-send leaves the
// lease to expire and it is tried again. Failures are retried with exponential backoff and jitter.
import { and, eq, inArray, isNull, lt, lte, ne, or, type SQL, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Db } from "@db/client";
import type { Logger } from "./logger";
import type { PendingWork } from "./pending-work";

/** How long a failing delivery is retried after it was queued. */
export const RETRY_FOR_MS = 24 * 3_600_000;
/** First retry after 30 s, doubling up to an hour between attempts (plus up to RETRY_JITTER). */
export const FIRST_RETRY_MS = 30_000;
export const MAX_RETRY_GAP_MS = 3_600_000;

/**
 * Up to this fraction of each wait is added at random, so that the deliveries that failed together
 * (every event while an endpoint was down) are not all retried in the same second when it is back.
 */
export const RETRY_JITTER = 0.2;

/** Wait before the attempt after `attempts` failed ones; `random` in [0, 1) picks the jitter. */
export const retryDelay = (attempts: number, random = Math.random()) =>
  Math.round(Math.min(MAX_RETRY_GAP_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1)) * (1 + RETRY_JITTER * random));

/** The columns a queue table must have (status 'pending' marks what is still to be sent). */
export type QueueTable = PgTable & {
  id: PgColumn;
  status: PgColumn;
  attempts: PgColumn;
  nextAttemptAt: PgColumn;
  lockedUntil: PgColumn;
};

/**
 * Claims up to `limit` due rows of `table` for this instance for `leaseMs` and counts the attempt;
 * `where` narrows the rows (one id). The lease must outlast any send, or another instance sends too.
 */
export async function claimDueRows<T extends QueueTable>(
  db: Db,
  table: T,
  options: { now: Date; leaseMs: number; limit: number; where?: SQL },
): Promise<T["$inferSelect"][]> {
  const { now } = options;
  // Drizzle's builders cannot be typed over "any table with these columns"; the casts stay here.
  const queue = table as unknown as PgTable;
  const due = db
    .select({ id: table.id })
    .from(queue)
    .where(
      and(
        eq(table.status, "pending"),
        lte(table.nextAttemptAt, now),
        or(isNull(table.lockedUntil), lte(table.lockedUntil, now)),
        ...(options.where ? [options.where] : []),
      ),
    )
    .orderBy(table.nextAttemptAt)
    .limit(options.limit)
    .for("update", { skipLocked: true });
  const claimed = await db
    .update(queue)
    .set({ lockedUntil: new Date(now.getTime() + options.leaseMs), attempts: sql`${table.attempts} + 1` } as never)
    .where(inArray(table.id, due))
    .returning();
  return claimed as T["$inferSelect"][];
}

/** Deletes the rows of `table` settled (sent, delivered or given up) before `before`; answers how many. */
export async function pruneFinishedRows<T extends QueueTable & { finishedAt: PgColumn }>(db: Db, table: T, before: Date): Promise<number> {
  const gone = await db
    .delete(table as unknown as PgTable)
    .where(and(ne(table.status, "pending"), lt(table.finishedAt, before)))
    .returning({ id: table.id });
  return gone.length;
}

export type QueueDispatcher = {
  /** Sends what is due soon, in the background (after queueing, and on a timer for retries). */
  kick(): void;
};

/**
 * Runs `sendDue` (one sending pass over a queue) one pass at a time; a kick during a pass runs
 * another pass after it. Passes are tracked as pending work, so shutting down lets them finish.
 */
export function createQueueDispatcher<Ctx extends { log: Logger; pendingWork: PendingWork }>(
  name: string,
  ctx: () => Ctx,
  sendDue: (ctx: Ctx) => Promise<unknown>,
): QueueDispatcher {
  let running = false;
  let again = false;
  const run = async () => {
    running = true;
    try {
      do {
        again = false;
        await sendDue(ctx());
      } while (again);
    } catch (error) {
      ctx().log.error(`${name} failed`, { error });
    } finally {
      running = false;
    }
  };
  return {
    kick() {
      if (running) {
        again = true;
        return;
      }
      void ctx().pendingWork.track(run());
    },
  };
}
