import { eq, lt, type SQL, sql } from "drizzle-orm";
import type { Db } from "@db/client";
import { rateLimits } from "@db/schema";

/** A key's counter after a hit: hits in the current window, and when the window ends. */
export type RateLimitHit = { count: number; windowEndsAt: Date };

/** A spaced hit: counted, or refused with the seconds to wait (refusals are not counted). */
export type SpacedHit = { admitted: true; count: number } | { admitted: false; retryAfter: number };

/**
 * Fixed-window counters kept in the database, so that every server instance counts against the
 * same limit (PostgreSQL or PGlite alike). Each hit is one atomic upsert: concurrent requests
 * cannot all read "under the limit" and pass together.
 */
export type RateLimiter = {
  /** Counts one hit for `key` in a window of `windowMs` (a new window once it is over). */
  hit(key: string, windowMs: number): Promise<RateLimitHit>;
  /**
   * Counts a hit only if it is allowed: the first `freeHits` of a window freely, each later one
   * only once 2^(hits - freeHits) seconds (at most `maxDelaySeconds`) have passed since the last.
   * A refused hit is not counted, so the wait it names holds.
   */
  spacedHit(key: string, windowMs: number, freeHits: number, maxDelaySeconds: number): Promise<SpacedHit>;
  /** Takes one hit back (an attempt that turned out to be legitimate). */
  forgive(key: string): Promise<void>;
  /** Forgets `key` altogether. */
  reset(key: string): Promise<void>;
};

/** Rows idle this long are deleted; longer than any window in use. */
const IDLE_ROWS_KEPT_MS = 24 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 10 * 60 * 1000;

export function createRateLimiter(db: Db, now: () => Date): RateLimiter {
  let lastSweep = 0;
  const sweep = async (at: Date) => {
    if (at.getTime() - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = at.getTime();
    await db.delete(rateLimits).where(lt(rateLimits.lastHitAt, new Date(at.getTime() - IDLE_ROWS_KEPT_MS)));
  };

  /**
   * Counts a hit for `key` (a new window once the old one is over), only where `admit` holds for
   * the row as it was; answers the row after the hit, or none when it was not admitted.
   */
  const upsertHit = async (key: string, at: Date, windowMs: number, admit?: (windowOver: SQL) => SQL) => {
    await sweep(at);
    // In ON CONFLICT … SET (and its WHERE), column names are the row's values before this hit.
    const windowOver = sql`${rateLimits.windowStartedAt} <= ${new Date(at.getTime() - windowMs).toISOString()}::timestamptz`;
    const [row] = await db
      .insert(rateLimits)
      .values({ key, count: 1, windowStartedAt: at, lastHitAt: at })
      .onConflictDoUpdate({
        target: rateLimits.key,
        set: {
          count: sql`case when ${windowOver} then 1 else ${rateLimits.count} + 1 end`,
          windowStartedAt: sql`case when ${windowOver} then ${at.toISOString()}::timestamptz else ${rateLimits.windowStartedAt} end`,
          lastHitAt: at,
        },
        ...(admit ? { setWhere: admit(windowOver) } : {}),
      })
      .returning();
    return row;
  };

  return {
    async hit(key, windowMs) {
      const row = (await upsertHit(key, now(), windowMs))!;
      return { count: row.count, windowEndsAt: new Date(row.windowStartedAt.getTime() + windowMs) };
    },
    async spacedHit(key, windowMs, freeHits, maxDelaySeconds) {
      const at = now();
      const delay = sql`make_interval(secs => least(power(2, ${rateLimits.count} - ${freeHits}), ${maxDelaySeconds}))`;
      const nextAllowedAt = sql`${rateLimits.lastHitAt} + ${delay}`;
      // The condition is checked under the row's lock, so concurrent attempts are spaced too.
      const row = await upsertHit(
        key,
        at,
        windowMs,
        (windowOver) => sql`${windowOver} or ${rateLimits.count} < ${freeHits} or ${nextAllowedAt} <= ${at.toISOString()}::timestamptz`,
      );
      if (row) return { admitted: true, count: row.count };
      const [blocked] = await db
        .select({ until: sql<string>`${nextAllowedAt}` })
        .from(rateLimits)
        .where(eq(rateLimits.key, key));
      return { admitted: false, retryAfter: blocked ? secondsUntil(new Date(blocked.until), at) : 1 };
    },
    async forgive(key) {
      await db
        .update(rateLimits)
        .set({ count: sql`greatest(${rateLimits.count} - 1, 0)` })
        .where(eq(rateLimits.key, key));
    },
    async reset(key) {
      await db.delete(rateLimits).where(eq(rateLimits.key, key));
    },
  };
}

/** Whole seconds from `at` until `until` (at least 1). */
export const secondsUntil = (until: Date, at: Date) => Math.max(1, Math.ceil((until.getTime() - at.getTime()) / 1000));
