// Object Lock dates (STORAGE_OBJECT_LOCK): until when storage refuses to delete a backup's file
// and manifest. Never past the moment its retention rule may let it go, so retention is never
// blocked by a lock it set itself for longer than the rule wanted; a backup the rule keeps longer
// (a GFS pick) gets its lock extended by the retention pass (retention/lock.ts).
import type { AppContext } from "../../context";
import { GFS_RECENT_HOURS, type KeepReason, type RetentionPolicy } from "./policy";
import { policyOfUser } from "./user-policy";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const startOfDay = (date: Date) => Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
/** Monday 00:00 UTC of the date's ISO week. */
const startOfWeek = (date: Date) => startOfDay(date) - ((date.getUTCDay() + 6) % 7) * DAY;
const monthsAfter = (date: Date, months: number) => Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1);

/**
 * The earliest moment the rule may let a kept backup go, from the time-bound reasons it is kept
 * for; null when none (newest, last-verified and last-good end when something else happens, not
 * at a time: no lock follows from them). A GFS pick counts once its day, week or month is over:
 * until then a newer backup of the same period can take its place.
 */
export function lockUntil(createdAt: Date, reasons: KeepReason[], policy: RetentionPolicy, now: Date): Date | null {
  const created = createdAt.getTime();
  const ends: number[] = [];
  for (const reason of reasons) {
    if (reason === "retention" && policy.mode === "age") ends.push(created + policy.hours * HOUR);
    if (policy.mode !== "gfs") continue;
    // The N newest days (weeks, months) that have a backup: one of day D goes, at the earliest,
    // when N later days could each have had one, that is once day D + N has begun.
    if (reason === "recent") ends.push(created + GFS_RECENT_HOURS * HOUR);
    const day = startOfDay(createdAt);
    if (reason === "daily" && now.getTime() >= day + DAY) ends.push(day + policy.daily * DAY);
    const week = startOfWeek(createdAt);
    if (reason === "weekly" && now.getTime() >= week + 7 * DAY) ends.push(week + policy.weekly * 7 * DAY);
    if (reason === "monthly" && now.getTime() >= monthsAfter(createdAt, 1)) ends.push(monthsAfter(createdAt, policy.monthly));
  }
  if (ends.length === 0) return null;
  const end = policy.mode === "gfs" ? Math.min(Math.max(...ends), created + policy.limitHours * HOUR) : Math.max(...ends);
  return end > now.getTime() ? new Date(end) : null;
}

/** The Object Lock a new backup's file and manifest are written with (STORAGE_OBJECT_LOCK): what its owner's rule keeps any new backup for; undefined without a lock. */
export async function lockForNewBackup(ctx: AppContext, backup: { organizationId: string; createdAt: Date }): Promise<Date | undefined> {
  if (!ctx.storage.objectLock) return undefined;
  const policy = await policyOfUser(ctx, backup.organizationId);
  if (!policy) return undefined;
  return lockUntil(backup.createdAt, [policy.mode === "age" ? "retention" : "recent"], policy, ctx.now()) ?? undefined;
}

/**
 * The Object Lock an oplog slice is written with (STORAGE_OBJECT_LOCK): point-in-time retention
 * (pitr/retention.ts) lets a slice go once a kept base backup newer than its end lies a whole
 * window back, so no sooner than its end plus the plan's window. Undefined without a lock.
 */
export function lockForSlice(ctx: AppContext, endTs: bigint, windowHours: number): Date | undefined {
  if (!ctx.storage.objectLock || windowHours <= 0) return undefined;
  const until = Number(endTs >> 32n) * 1000 + windowHours * HOUR;
  return until > ctx.now().getTime() ? new Date(until) : undefined;
}
