// Which backups retention keeps: one pure function used both to delete (service.ts) and to
// preview a policy on the settings page, so the preview is exactly what retention will do.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export type RetentionPolicy =
  /** Keep every backup younger than `hours`. */
  | { mode: "age"; hours: number }
  /**
   * Grandfather-father-son: keep the newest backup of each of the last `daily` days, `weekly` ISO
   * weeks and `monthly` months that have one (UTC), and everything of the last 24 hours; nothing
   * older than the plan's `limitHours`.
   */
  | { mode: "gfs"; daily: number; weekly: number; monthly: number; limitHours: number };

export type RetentionCandidate = {
  id: string;
  databaseName: string;
  status: "completed" | "failed";
  createdAt: Date;
  /** The last verification's status; null when never verified. */
  verification: "ok" | "failed" | null;
  anomaly: "none" | "unresolved" | "resolved";
  /** Kept forever by the user: whatever the policy, it stays. */
  kept?: boolean;
};

/** The policy a user's saved settings and plan make. */
export function policyOf(
  saved: { retentionMode: "age" | "gfs"; retention: number; gfsDaily: number; gfsWeekly: number; gfsMonthly: number },
  plan: { retentionLimit: number },
): RetentionPolicy {
  if (saved.retentionMode === "gfs") {
    return { mode: "gfs", daily: saved.gfsDaily, weekly: saved.gfsWeekly, monthly: saved.gfsMonthly, limitHours: plan.retentionLimit };
  }
  return { mode: "age", hours: Math.min(saved.retention, plan.retentionLimit) };
}

/**
 * The days the policy keeps a backup at least, and the rule in words: under an age rule its age,
 * under GFS a daily pick's days (the 24 hours every backup is kept are shorter than any lock worth
 * having). A copy locked shorter could be deleted while DBVault still keeps the backup.
 */
export function shortestKeep(policy: RetentionPolicy): { days: number; rule: string } {
  if (policy.mode === "age") {
    const days = Math.max(1, Math.ceil(policy.hours / 24));
    return { days, rule: `backups are kept ${days} day${days === 1 ? "" : "s"}` };
  }
  const days = Math.max(1, Math.min(policy.daily, Math.ceil(policy.limitHours / 24)));
  return { days, rule: `a daily backup is kept ${days} day${days === 1 ? "" : "s"} (grandfather-father-son)` };
}

/** Why a backup is kept. */
export type KeepReason = "kept-forever" | "newest" | "last-verified" | "last-good" | "retention" | "recent" | "daily" | "weekly" | "monthly";
/** Why a backup goes: past the age, chosen by no GFS rule, or chosen but older than the plan allows. */
export type DropReason = "expired" | "not-selected" | "beyond-plan";

export type RetentionDecision = { keep: true; reasons: KeepReason[] } | { keep: false; reason: DropReason };

/** Hours of the last day, kept whole under GFS so intraday backups are not thinned at once. */
export const GFS_RECENT_HOURS = 24;

const dayKey = (date: Date) => date.toISOString().slice(0, 10);
const monthKey = (date: Date) => date.toISOString().slice(0, 7);
/** The ISO 8601 week ("2026-W05") of a date, in UTC. */
export function isoWeekKey(date: Date): string {
  const day = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const weekday = day.getUTCDay() || 7; // Monday 1 … Sunday 7
  day.setUTCDate(day.getUTCDate() + 4 - weekday); // the Thursday of its week decides the year
  const yearStart = Date.UTC(day.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((day.getTime() - yearStart) / DAY + 1) / 7);
  return `${day.getUTCFullYear()}-W${String(week).padStart(2, "0")}`;
}

const BUCKETS = { daily: dayKey, weekly: isoWeekKey, monthly: monthKey } as const;

/**
 * Decides, for every backup given (completed and failed; running ones must not be passed), whether
 * retention keeps it and why. Whatever the policy, the backups kept forever stay, and each database keeps its newest completed backup,
 * its newest verified one, and while it has an unresolved anomaly the newest good backup (no
 * anomaly, not failing verification) from before its oldest unresolved anomaly.
 */
export function decideRetention(candidates: RetentionCandidate[], policy: RetentionPolicy, now: Date): Map<string, RetentionDecision> {
  const decisions = new Map<string, RetentionDecision>();
  const byDatabase = new Map<string, RetentionCandidate[]>();
  for (const candidate of candidates) {
    const group = byDatabase.get(candidate.databaseName);
    if (group) group.push(candidate);
    else byDatabase.set(candidate.databaseName, [candidate]);
  }
  for (const group of byDatabase.values()) {
    const newestFirst = [...group].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id));
    const reasons = new Map<string, KeepReason[]>(newestFirst.map((backup) => [backup.id, []]));
    const keep = (backup: RetentionCandidate | undefined, reason: KeepReason) => backup && reasons.get(backup.id)!.push(reason);
    const completed = newestFirst.filter((backup) => backup.status === "completed");

    for (const backup of newestFirst) if (backup.kept) keep(backup, "kept-forever");
    keep(completed[0], "newest");
    keep(
      completed.find((backup) => backup.verification === "ok"),
      "last-verified",
    );
    keep(findLastGood(completed), "last-good");
    const choose = policy.mode === "age" ? chooseByAge(newestFirst, policy, now) : chooseByGfs(newestFirst, completed, policy, now);
    for (const [id, reason] of choose.kept) reasons.get(id)!.push(reason);

    for (const backup of newestFirst) {
      const why = reasons.get(backup.id)!;
      decisions.set(backup.id, why.length > 0 ? { keep: true, reasons: why } : { keep: false, reason: choose.dropped.get(backup.id) ?? "expired" });
    }
  }
  return decisions;
}

/** The newest good completed backup older than the database's oldest unresolved anomaly; none when there is no such anomaly. */
function findLastGood(completedNewestFirst: RetentionCandidate[]): RetentionCandidate | undefined {
  const unresolved = completedNewestFirst.filter((backup) => backup.anomaly === "unresolved");
  const oldest = unresolved.at(-1);
  if (!oldest) return undefined;
  return completedNewestFirst.find((backup) => backup.createdAt < oldest.createdAt && backup.anomaly !== "unresolved" && backup.verification !== "failed");
}

type Chosen = { kept: [string, KeepReason][]; dropped: Map<string, DropReason> };

function chooseByAge(newestFirst: RetentionCandidate[], policy: { hours: number }, now: Date): Chosen {
  const cutoff = now.getTime() - policy.hours * HOUR;
  return { kept: newestFirst.filter((backup) => backup.createdAt.getTime() > cutoff).map((backup) => [backup.id, "retention"]), dropped: new Map() };
}

function chooseByGfs(newestFirst: RetentionCandidate[], completed: RetentionCandidate[], policy: Extract<RetentionPolicy, { mode: "gfs" }>, now: Date): Chosen {
  const limit = now.getTime() - policy.limitHours * HOUR;
  const kept: [string, KeepReason][] = [];
  const keptIds = new Set<string>();
  const beyondPlan = new Set<string>();
  const offer = (backup: RetentionCandidate, reason: KeepReason) => {
    if (backup.createdAt.getTime() <= limit) return void beyondPlan.add(backup.id);
    kept.push([backup.id, reason]);
    keptIds.add(backup.id);
  };
  // The last day whole; failed backups (no file, history only) for the daily window.
  const recent = now.getTime() - GFS_RECENT_HOURS * HOUR;
  const failedWindow = now.getTime() - Math.max(1, policy.daily) * DAY;
  for (const backup of newestFirst) {
    if (backup.createdAt.getTime() > (backup.status === "completed" ? recent : failedWindow)) offer(backup, "recent");
  }
  for (const rule of ["daily", "weekly", "monthly"] as const) {
    let left = policy[rule];
    let lastBucket: string | undefined;
    for (const backup of completed) {
      if (left <= 0) break;
      const bucket = BUCKETS[rule](backup.createdAt);
      if (bucket === lastBucket) continue;
      lastBucket = bucket;
      left--;
      offer(backup, rule);
    }
  }
  const dropped = new Map<string, DropReason>();
  for (const backup of newestFirst) {
    if (keptIds.has(backup.id)) continue;
    dropped.set(backup.id, beyondPlan.has(backup.id) ? "beyond-plan" : backup.status === "failed" ? "expired" : "not-selected");
  }
  return { kept, dropped };
}
