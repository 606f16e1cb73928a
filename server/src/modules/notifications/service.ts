import { eq } from "drizzle-orm";
import { settings, users } from "@db/schema";
import { formatBytes } from "@protocol/format";
import type { AppContext } from "../../context";
import { agentFacts, backupFacts, restoreFacts } from "../webhooks/events";
import { publishEvent } from "../webhooks/service";

// Each notify* tells the user through every channel: e-mail (under its toggle) and the webhooks
// subscribed to the event (modules/webhooks). Neither throws.

type Toggle = "notifyBackupSuccess" | "notifyBackupFailure" | "notifyAgentDisconnection";

/** Mails the user about an event when they have that notification switched on. Never throws. */
async function notifyUser(ctx: AppContext, userId: string, toggle: Toggle, subject: string, lines: string[]) {
  try {
    const [row] = await ctx.db
      .select({ email: users.email, settings })
      .from(users)
      .leftJoin(settings, eq(settings.userId, users.id))
      .where(eq(users.id, userId));
    if (!row) return;
    // Users without a settings row have the defaults: every notification on.
    if (row.settings && !row.settings[toggle]) return;
    const to = row.settings?.notificationEmail ?? row.email;
    const text = [...lines, "", `Manage notifications: ${ctx.config.publicUrl}/settings?tab=notifications`].join("\n");
    await ctx.mailer.send({ to, subject, text });
  } catch (error) {
    ctx.log.error("notification mail failed", { userId, subject, error });
  }
}

type BackupRow = Parameters<typeof backupFacts>[0] & { userId: string };

export async function notifyBackupCompleted(ctx: AppContext, backup: BackupRow) {
  await Promise.all([
    notifyUser(ctx, backup.userId, "notifyBackupSuccess", `Backup completed: ${backup.databaseName}`, [
      `The backup of "${backup.databaseName}" completed successfully.`,
      `Size: ${formatBytes(backup.size)} (encrypted). Backup id: ${backup.id}.`,
    ]),
    publishEvent(ctx, backup.userId, { event: "backup.completed", backup: backupFacts(backup) }),
  ]);
}

export async function notifyBackupFailed(ctx: AppContext, backup: BackupRow, reason: string) {
  await Promise.all([
    notifyUser(ctx, backup.userId, "notifyBackupFailure", `Backup failed: ${backup.databaseName}`, [
      `The backup of "${backup.databaseName}" failed.`,
      `Reason: ${reason}`,
      `Backup id: ${backup.id}. Your earlier backups are unaffected.`,
    ]),
    publishEvent(ctx, backup.userId, { event: "backup.failed", backup: { ...backupFacts(backup), error: reason } }),
  ]);
}

/** A restore's end, under the backup toggles: which collections it replaced, or why it failed (the agent's message says what changed). */
export async function notifyRestoreFinished(ctx: AppContext, restore: Parameters<typeof restoreFacts>[0] & { userId: string }) {
  await Promise.all([
    mailRestoreFinished(ctx, restore),
    publishEvent(ctx, restore.userId, { event: restore.status === "completed" ? "restore.completed" : "restore.failed", restore: restoreFacts(restore) }),
  ]);
}

function mailRestoreFinished(ctx: AppContext, restore: Parameters<typeof notifyRestoreFinished>[1]) {
  const target = restore.targetDatabase ?? restore.databaseName;
  const what = `The restore of a backup of "${restore.databaseName}"${target === restore.databaseName ? "" : ` into "${target}"`}`;
  if (restore.status === "completed") {
    const replaced = Object.keys(restore.stats ?? {});
    return notifyUser(ctx, restore.userId, "notifyBackupSuccess", `Restore completed: ${target}`, [
      `${what} completed.`,
      `Replaced ${replaced.length} collection(s): ${replaced.join(", ") || "none"}. Nothing else in "${target}" was changed.`,
      `Restore id: ${restore.id}.`,
    ]);
  }
  return notifyUser(ctx, restore.userId, "notifyBackupFailure", `Restore failed: ${target}`, [
    `${what} failed.`,
    `Reason: ${restore.error ?? "unknown"}`,
    `Restore id: ${restore.id}.`,
  ]);
}

/** Once per outage: scheduled backups are being skipped (not failed) while the agent is offline. */
export function notifyBackupsSkipped(ctx: AppContext, agent: { userId: string; name: string; hostname: string | null }, databaseNames: string[]) {
  const names = databaseNames.map((name) => `"${name}"`).join(", ");
  return notifyUser(ctx, agent.userId, "notifyBackupFailure", `Scheduled backups paused: agent ${agent.name} is offline`, [
    `The scheduled backup of ${names} was skipped: the DBVault agent "${agent.name}"${agent.hostname ? ` on ${agent.hostname}` : ""} is offline.`,
    "Scheduled backups resume by themselves once it reconnects (start it with `dbvault-agent run` on that server). You will not be told again during this outage.",
  ]);
}

type AgentRow = Parameters<typeof agentFacts>[0] & { userId: string };

export async function notifyAgentDisconnected(ctx: AppContext, agent: AgentRow) {
  await Promise.all([
    notifyUser(ctx, agent.userId, "notifyAgentDisconnection", `Agent disconnected: ${agent.name}`, [
      `The DBVault agent "${agent.name}"${agent.hostname ? ` on ${agent.hostname}` : ""} disconnected.`,
      "Scheduled backups of its databases cannot run until it reconnects. Check that `dbvault-agent run` is running on that server.",
    ]),
    publishEvent(ctx, agent.userId, { event: "agent.offline", agent: agentFacts(agent) }),
  ]);
}

/** An agent came online after being offline (or for the first time): webhooks only, e-mail has no such notice. */
export async function notifyAgentConnected(ctx: AppContext, agent: AgentRow) {
  await publishEvent(ctx, agent.userId, { event: "agent.online", agent: agentFacts(agent) });
}
