import { sql } from "drizzle-orm";
import { backups, type databases, restores } from "@db/schema";
import type { AppContext } from "../../context";
import { claimOutageNotice } from "../agents/outage-notice";
import { sweepAgentStatuses } from "../agents/service";
import { expireLeases } from "../agent-jobs/lease-rules";
import { recordAudit } from "../audit/service";
import { claimDueBackups, clearMissedBackup, recordMissedBackup } from "../databases/schedule";
import { AppError } from "../../lib/errors";
import { finishDueTurnOffs } from "../backup-protection/state";
import { releasePendingBackupData, startBackup } from "../backups/service";
import { runDueDrills } from "../drills/service";
import { applyRetention } from "../retention/service";
import { prunePitrSlices } from "../pitr/retention";
import { notifyBackupsSkipped } from "../notifications/service";
import { pruneFinishedDeliveries } from "../webhooks/deliveries";
import { pruneFinishedMail } from "../mail/outbox";
import { pruneSettledJobs } from "../agent-jobs/service";
import { runReplicaRepair } from "../storage-replica/service";

/** A time as a query parameter both drivers pass through unchanged (cast with ::timestamptz). */
const at = (ms: number) => new Date(ms).toISOString();

/**
 * Starts the scheduled backups that are due. Each due database is claimed with
 * `FOR UPDATE SKIP LOCKED` and its next time moved on in the same transaction
 * (databases/schedule.ts `claimDueBackups`), so with several instances each backup runs once, and
 * after downtime a missed slot runs once, not many times.
 *
 * A database is scheduled only once its agent has connected at least once: its first backup runs
 * at the first tick after `dbvault-agent run` connects, not seconds after `setup` registered it
 * (which used to fail it with no agent online). A slot whose agent is offline is skipped, not failed, with one notice
 * per outage (skipForOfflineAgents), once the disconnection's grace period is over (DISCONNECT_GRACE_MS).
 */
export async function runDueBackups(ctx: AppContext, options: { limit?: number } = {}) {
  const claimed = await claimDueBackups(ctx, options.limit ?? 50);
  const skipped = claimed.filter((row) => row.windowOpen && row.agent.status === "offline").map((row) => row.database);
  for (const { database, agent, windowOpen } of claimed) {
    if (!windowOpen) {
      await recordMissedBackup(ctx, database.id, "Window passed: the scheduler did not run during the backup window (server down).");
      continue;
    }
    if (agent.status === "offline") {
      await recordMissedBackup(ctx, database.id, "Agent offline: start it with dbvault-agent run.");
      continue;
    }
    try {
      await startBackup(ctx, database, "auto");
      if (database.missedBackupReason !== null) await clearMissedBackup(ctx, database.id);
    } catch (error) {
      // A refusal (storage limit, plan limit) is the user's to act on: said where the schedule is shown.
      if (error instanceof AppError) await recordMissedBackup(ctx, database.id, missedReasonOf(error));
      ctx.log.error("scheduled backup could not start", { databaseId: database.id, error });
    }
  }
  await skipForOfflineAgents(ctx, skipped);
  return claimed.length;
}

/** Why a refused scheduled backup did not run, led by its kind (agent offline, limit reached). */
function missedReasonOf(error: AppError) {
  if (error.code === "AGENT_OFFLINE") return `Agent offline: ${error.message}`;
  if (error.status === 403 || error.status === 429 || error.status === 413) return `Limit reached: ${error.message}`;
  return error.message;
}

/**
 * Tells the user, once per outage of an agent, that its databases' scheduled backups are being
 * skipped. claimOutageNotice claims it, so several instances send it once.
 */
async function skipForOfflineAgents(ctx: AppContext, skipped: (typeof databases.$inferSelect)[]) {
  const byAgent = new Map<string, (typeof databases.$inferSelect)[]>();
  for (const database of skipped) byAgent.set(database.agentId!, [...(byAgent.get(database.agentId!) ?? []), database]);
  for (const [agentId, group] of byAgent) {
    const agent = await claimOutageNotice(ctx, agentId);
    const names = group.map((database) => database.name);
    ctx.log.info("scheduled backups skipped: agent offline", { agentId, databases: names });
    if (!agent) continue;
    await recordAudit(ctx.db, agent.organizationId, "BACKUP_SKIPPED", { agentId, name: agent.name, databases: names, reason: "agent offline" });
    await notifyBackupsSkipped(ctx, agent, names);
  }
}

/** Runs every periodic job of the backup service once. */
export async function runMaintenance(ctx: AppContext) {
  await sweepAgentStatuses(ctx);
  await expireLeases(ctx);
  await runDueBackups(ctx);
  await runDueDrills(ctx);
  await finishDueTurnOffs(ctx);
  await applyRetention(ctx);
  await prunePitrSlices(ctx);
  await releasePendingBackupData(ctx);
  await pruneFinishedDeliveries(ctx);
  await pruneFinishedMail(ctx);
  await pruneSettledJobs(ctx);
  await runReplicaRepair(ctx);
}
