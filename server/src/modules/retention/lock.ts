// The retention pass's side of Object Lock: a backup the rule keeps longer than its first lock
// (a GFS promotion) gets its lock extended (the dates: retention-rules/lock-until.ts).
import type { AppContext } from "../../context";
import { backupStorage } from "../stored-files/keys";
import type { KeepReason, RetentionPolicy } from "../retention-rules/policy";
import { lockUntil } from "../retention-rules/lock-until";

/** Extends the locks of the backups retention keeps to what their rule now keeps them for (a GFS promotion). */
export async function extendLocks(
  ctx: AppContext,
  kept: { id: string; organizationId: string; createdAt: Date; reasons: KeepReason[] }[],
  policy: RetentionPolicy,
) {
  // Locks known to reach at least this far: a retention pass runs every few minutes and need not
  // ask S3 again about a lock it already extended.
  const known = ctx.caches.lockedUntil;
  for (const backup of kept) {
    const until = lockUntil(backup.createdAt, backup.reasons, policy, ctx.now());
    if (!until || until.getTime() <= (known.get(backup.id) ?? 0)) continue;
    try {
      await ctx.storage.retain(backupStorage.file(backup.organizationId, backup.id), until);
      await ctx.storage.retain(backupStorage.manifest(backup.organizationId, backup.id), until);
      known.set(backup.id, until.getTime());
    } catch (error) {
      ctx.log.warn("could not extend a backup's Object Lock; the next retention pass tries again", { backupId: backup.id, error });
    }
  }
}
