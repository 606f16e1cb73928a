// The ledger's lease rules, in one place: how long a job may go unheard of, and the one sweep
// that gives up a job past them and has its subject failed, telling the user why. Nothing revives
// a job past them (the delivery lease, service.ts; the queue a heartbeat reports,
// agents/queued-jobs.ts, which keeps a queued subject pending at most QUEUED_LIMIT_MS).
import { and, inArray, lt, sql } from "drizzle-orm";
import { agentJobs, backups, restores } from "@db/schema";
import type { AppContext } from "../../context";

const at = (ms: number) => new Date(ms).toISOString();

/** A pending job its agent never started fails after this; a running one that went silent, after STALLED_TIMEOUT_MS. */
export const PENDING_TIMEOUT_MS = 2 * 60_000;
export const STALLED_TIMEOUT_MS = 10 * 60_000;

/** The longest a backup or restore may wait in an agent's queue (behind a very long backup, say). */
export const QUEUED_LIMIT_MS = 12 * 3_600_000;

/**
 * A restore the agent stopped reporting on may have swapped some collections in before it went
 * silent (a kill mid-swap), so the user is told what state the database can be in: collections
 * are swapped whole from staging, except those copied in place (docs/restore.md, Limits).
 */
export const STALLED_RESTORE_MESSAGE =
  "The agent stopped reporting during the restore (disconnected or stopped). Collections it had swapped in hold the backup's data and the others their data from before (one being copied in place, as time-series collections before MongoDB 8.0 are, may be partly filled). Restore again to be sure every collection holds the backup's.";

/**
 * The one sweep of the ledger's leases (run by the maintenance pass): a job whose agent went
 * silent (also one left running by a server restart) is given up, and its subject failed saying
 * why, through the module that owns it (subscriptions.ts routes `agentJobExpired`); a
 * verification or an update whose lease ran out unheard of is failed (asked again, it is a new
 * job). Returns how many subjects it failed.
 */
export async function expireLeases(ctx: AppContext) {
  const now = ctx.now().getTime();
  const stalledBackups = await ctx.db
    .select({ id: backups.id, status: backups.status })
    .from(backups)
    .where(
      sql`(${backups.status} = 'pending' and ${backups.lastActivityAt} < ${at(now - PENDING_TIMEOUT_MS)}::timestamptz)
        or (${backups.status} = 'in-progress' and ${backups.lastActivityAt} < ${at(now - STALLED_TIMEOUT_MS)}::timestamptz)`,
    );
  for (const backup of stalledBackups) {
    await ctx.events.emit({
      type: "agentJobExpired",
      kind: "backup",
      subjectId: backup.id,
      reason:
        backup.status === "pending"
          ? "The agent did not start the backup. Check that dbvault-agent run is running and connected."
          : "The agent stopped reporting during the backup (disconnected or stopped).",
    });
  }
  // One waiting for a restore agent (restore-agents/) is not stalled: it says why it waits, and
  // is given up only after QUEUED_LIMIT_MS, saying so.
  const stalledRestores = await ctx.db
    .select({ id: restores.id, status: restores.status, kind: restores.kind, waitingFor: restores.waitingFor })
    .from(restores)
    .where(
      sql`(${restores.status} = 'pending' and ${restores.waitingFor} is null and ${restores.lastActivityAt} < ${at(now - PENDING_TIMEOUT_MS)}::timestamptz)
        or (${restores.status} = 'pending' and ${restores.waitingFor} is not null and ${restores.createdAt} < ${at(now - QUEUED_LIMIT_MS)}::timestamptz)
        or (${restores.status} = 'in-progress' and ${restores.lastActivityAt} < ${at(now - STALLED_TIMEOUT_MS)}::timestamptz)`,
    );
  for (const restore of stalledRestores) {
    await ctx.events.emit({
      type: "agentJobExpired",
      kind: "restore",
      subjectId: restore.id,
      reason: restore.waitingFor
        ? `No restore agent that can read this backup came online within ${QUEUED_LIMIT_MS / 3_600_000} hours. Start one with dbvault-agent run where the identity is kept, then ask again.`
        : restore.status === "pending"
          ? "The agent did not start the restore."
          : restore.kind === "restore"
            ? STALLED_RESTORE_MESSAGE
            : "The agent stopped reporting during the restore.",
    });
  }
  // A verification or an update has no row of its own that goes stale: its lease is its deadline.
  await ctx.db
    .update(agentJobs)
    .set({ state: "failed", settledAt: ctx.now() })
    .where(and(inArray(agentJobs.kind, ["verify", "update"]), inArray(agentJobs.state, ["queued", "leased"]), lt(agentJobs.leaseExpiresAt, ctx.now())));
  return stalledBackups.length + stalledRestores.length;
}
