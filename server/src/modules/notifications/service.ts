import { eq } from "drizzle-orm";
import { settings } from "@db/schema";
import { formatBytes } from "@protocol/format";
import type { AppContext } from "../../context";
import type { TrustAlert, TrustEvent } from "../../lib/event-bus";
import {
  type BackupFacts,
  type CopyFacts,
  type DBVaultEvent,
  type PitrGapFacts,
  type PitrLagFacts,
  type RestoreFacts,
  agentFacts,
  backupFacts,
  restoreFacts,
} from "../webhooks/events";
import { publishEvent } from "../webhooks/service";
import { queueMail } from "../mail/outbox";
import { alertRecipients } from "../organizations/recipients";

// Each notify* tells the organization through every channel: e-mail (under its toggle) and the webhooks
// subscribed to the event (modules/webhooks). Neither throws.

type Toggle = "notifyBackupSuccess" | "notifyBackupFailure" | "notifyAgentDisconnection";

/**
 * Queues a mail about an event when the organization has that notification switched on (the
 * outbox sends it, and retries while the mail server is down): to its notification address when
 * one is set, else to each owner and admin (organizations/recipients.ts; a personal organization's
 * is its founder, as before teams). Never throws.
 */
async function notifyUser(ctx: AppContext, organizationId: string, toggle: Toggle, subject: string, lines: string[]) {
  try {
    const [row] = await ctx.db.select().from(settings).where(eq(settings.organizationId, organizationId));
    // Organizations without a settings row have the defaults: every notification on.
    if (row && !row[toggle]) return;
    const to = row?.notificationEmail ? [row.notificationEmail] : (await alertRecipients(ctx.db, organizationId)).map((recipient) => recipient.email);
    const text = [...lines, "", `Manage notifications: ${ctx.config.publicUrl}/settings?tab=notifications`].join("\n");
    for (const address of to) await queueMail(ctx, { to: address, subject, text });
  } catch (error) {
    ctx.log.error("notification mail could not be queued", { organizationId, subject, error });
  }
}

type BackupRow = Parameters<typeof backupFacts>[0] & { organizationId: string };

export async function notifyBackupCompleted(ctx: AppContext, backup: BackupRow) {
  await Promise.all([
    notifyUser(ctx, backup.organizationId, "notifyBackupSuccess", `Backup completed: ${backup.databaseName}`, [
      `The backup of "${backup.databaseName}" completed successfully.`,
      `Size: ${formatBytes(backup.size)} (encrypted). Backup id: ${backup.id}.`,
    ]),
    publishEvent(ctx, backup.organizationId, { event: "backup.completed", backup: backupFacts(backup) }),
  ]);
}

export async function notifyBackupFailed(ctx: AppContext, backup: BackupRow, reason: string) {
  await Promise.all([
    notifyUser(ctx, backup.organizationId, "notifyBackupFailure", `Backup failed: ${backup.databaseName}`, [
      `The backup of "${backup.databaseName}" failed.`,
      `Reason: ${reason}`,
      `Backup id: ${backup.id}. Your earlier backups are unaffected.`,
    ]),
    publishEvent(ctx, backup.organizationId, { event: "backup.failed", backup: { ...backupFacts(backup), error: reason } }),
  ]);
}

/** A restore's end, under the backup toggles: which collections it replaced, or why it failed (the agent's message says what changed). */
export async function notifyRestoreFinished(ctx: AppContext, restore: Parameters<typeof restoreFacts>[0] & { organizationId: string }) {
  await Promise.all([
    mailRestoreFinished(ctx, restore),
    publishEvent(ctx, restore.organizationId, {
      event: restore.status === "completed" ? "restore.completed" : "restore.failed",
      restore: restoreFacts(restore),
    }),
  ]);
}

function mailRestoreFinished(ctx: AppContext, restore: Parameters<typeof notifyRestoreFinished>[1]) {
  const target = restore.targetDatabase ?? restore.databaseName;
  const what = `The restore of a backup of "${restore.databaseName}"${target === restore.databaseName ? "" : ` into "${target}"`}`;
  if (restore.status === "completed") {
    const replaced = Object.keys(restore.stats ?? {});
    return notifyUser(ctx, restore.organizationId, "notifyBackupSuccess", `Restore completed: ${target}`, [
      `${what} completed.`,
      `Replaced ${replaced.length} collection(s): ${replaced.join(", ") || "none"}. Nothing else in "${target}" was changed.`,
      `Restore id: ${restore.id}.`,
    ]);
  }
  return notifyUser(ctx, restore.organizationId, "notifyBackupFailure", `Restore failed: ${target}`, [
    `${what} failed.`,
    `Reason: ${restore.error ?? "unknown"}`,
    `Restore id: ${restore.id}.`,
  ]);
}

/** Once per outage: scheduled backups are being skipped (not failed) while the agent is offline. */
export function notifyBackupsSkipped(ctx: AppContext, agent: { organizationId: string; name: string; hostname: string | null }, databaseNames: string[]) {
  const names = databaseNames.map((name) => `"${name}"`).join(", ");
  return notifyUser(ctx, agent.organizationId, "notifyBackupFailure", `Scheduled backups paused: agent ${agent.name} is offline`, [
    `The scheduled backup of ${names} was skipped: the DBVault agent "${agent.name}"${agent.hostname ? ` on ${agent.hostname}` : ""} is offline.`,
    "Scheduled backups resume by themselves once it reconnects (start it with `dbvault-agent run` on that server). You will not be told again during this outage.",
  ]);
}

/** What a trust alert's webhook event carries: the backup's facts, or the drill's (a restore). */
type AlertFacts = { backup: BackupFacts } | { restore: RestoreFacts };

/**
 * Hands the alert to every channel: the app's "alert" event and the webhooks subscribed to it
 * always, e-mail when `mail` is given and the toggle is on.
 */
async function raiseAlert(ctx: AppContext, alert: TrustAlert, facts: AlertFacts, mail?: { subject: string; lines: string[] }) {
  await ctx.events.emit({ type: "alert", alert });
  const event = ("backup" in facts ? { event: alert.event, backup: facts.backup } : { event: alert.event, restore: facts.restore }) as DBVaultEvent;
  await Promise.all([
    publishEvent(ctx, alert.organizationId, event),
    mail ? notifyUser(ctx, alert.organizationId, "notifyBackupFailure", mail.subject, mail.lines) : undefined,
  ]);
}

type AlertSubject = { organizationId: string; databaseName: string; backupId: string | null; restoreId?: string | null; agentId: string | null };

const alertOf = (ctx: AppContext, event: TrustEvent, subject: AlertSubject, status: string, detail: string): TrustAlert => ({
  event,
  organizationId: subject.organizationId,
  occurredAt: ctx.now().toISOString(),
  backupId: subject.backupId,
  restoreId: subject.restoreId ?? null,
  agentId: subject.agentId,
  databaseName: subject.databaseName,
  status,
  detail,
});

/** A stored backup read back whole with the right counts: an event for webhooks, no e-mail (the completion mail said enough). */
export function notifyBackupVerified(ctx: AppContext, subject: AlertSubject, detail: string, backup: BackupFacts) {
  return raiseAlert(ctx, alertOf(ctx, "backup.verified", subject, "ok", detail), { backup });
}

/** A stored backup that does not read back, or holds other counts than were dumped: mailed under Backup Failure. */
export function notifyVerificationFailed(ctx: AppContext, subject: AlertSubject, detail: string, backup: BackupFacts) {
  return raiseAlert(
    ctx,
    alertOf(ctx, "backup.verification_failed", subject, "failed", detail),
    { backup },
    {
      subject: `Backup verification failed: ${subject.databaseName}`,
      lines: [
        `A backup of "${subject.databaseName}" could not be read back from storage as it was written.`,
        `Reason: ${detail}`,
        `Backup id: ${subject.backupId}. Do not count on this backup for a restore; retention keeps your last verified backup.`,
        "Trigger a new backup from the dashboard, and if this repeats, check the server's storage.",
      ],
    },
  );
}

/** A completed backup much smaller than the ones before it: mailed under Backup Failure, before retention can remove the good copies. */
export function notifyBackupAnomaly(ctx: AppContext, subject: AlertSubject, anomaly: { kind: string; detail: string }, backup: BackupFacts) {
  return raiseAlert(
    ctx,
    alertOf(ctx, "backup.anomaly", subject, anomaly.kind, anomaly.detail),
    { backup },
    {
      subject: `Unusual backup: ${subject.databaseName}`,
      lines: [
        `The latest backup of "${subject.databaseName}" looks wrong: ${anomaly.detail}`,
        "This is what an accidental drop or a ransomware attack looks like. Check the database now.",
        "Until you mark the backup as expected on the dashboard, retention keeps the last good backup from before it.",
        `Backup id: ${subject.backupId}.`,
      ],
    },
  );
}

/** A drill's end: mailed only when it failed (under Backup Failure); both raise the event. */
export function notifyDrillFinished(
  ctx: AppContext,
  subject: AlertSubject & { restoreId: string },
  outcome: { status: "completed" | "failed"; detail: string },
  restore: RestoreFacts,
) {
  if (outcome.status === "completed") return raiseAlert(ctx, alertOf(ctx, "drill.completed", subject, "completed", outcome.detail), { restore });
  return raiseAlert(
    ctx,
    alertOf(ctx, "drill.failed", subject, "failed", outcome.detail),
    { restore },
    {
      subject: `Restore drill failed: ${subject.databaseName}`,
      lines: [
        `A test restore of the latest backup of "${subject.databaseName}" into a scratch database failed.`,
        `Reason: ${outcome.detail}`,
        `Drill id: ${subject.restoreId}. Your database itself was not touched.`,
      ],
    },
  );
}

type AgentRow = Parameters<typeof agentFacts>[0] & { organizationId: string };

export async function notifyAgentDisconnected(ctx: AppContext, agent: AgentRow) {
  await Promise.all([
    notifyUser(ctx, agent.organizationId, "notifyAgentDisconnection", `Agent disconnected: ${agent.name}`, [
      `The DBVault agent "${agent.name}"${agent.hostname ? ` on ${agent.hostname}` : ""} disconnected.`,
      "Scheduled backups of its databases cannot run until it reconnects. Check that `dbvault-agent run` is running on that server.",
    ]),
    publishEvent(ctx, agent.organizationId, { event: "agent.offline", agent: agentFacts(agent) }),
  ]);
}

/** An agent came online after being offline (or for the first time): webhooks only, e-mail has no such notice. */
export async function notifyAgentConnected(ctx: AppContext, agent: AgentRow) {
  await publishEvent(ctx, agent.organizationId, { event: "agent.online", agent: agentFacts(agent) });
}

const GAP_REASONS: Record<PitrGapFacts["reason"], string> = {
  rollover: "the oplog on your server was overwritten before the agent could ship it (it was stopped, or cut off, for longer than the oplog holds)",
  restarted: "shipping started again without its last position (the agent's state was lost, or point-in-time recovery was switched off and on)",
  missing: "a slice of the shipped oplog never reached the server",
};

/** A hole in a database's point-in-time coverage: mailed under Backup Failure and raised as pitr.gap. */
export async function notifyPitrGap(ctx: AppContext, organizationId: string, gap: PitrGapFacts) {
  await Promise.all([
    notifyUser(ctx, organizationId, "notifyBackupFailure", `Point-in-time recovery gap: ${gap.databaseName}`, [
      `"${gap.databaseName}" cannot be restored to a moment between ${gap.from.at} and ${gap.to.at}: ${GAP_REASONS[gap.reason]}.`,
      gap.reason === "missing"
        ? "Times before and after the gap can still be restored. Take a full backup now (dashboard → Back up now) so that restores after the gap have a base to start from."
        : "Times before and after the gap can still be restored. DBVault asked the agent for a full backup now, so that restores after the gap have a base to start from: check that it completes (dashboard → Recent backups).",
    ]),
    publishEvent(ctx, organizationId, { event: "pitr.gap", gap }),
  ]);
}

/** A database's oplog shipping fell more than the alert threshold behind: mailed under Backup Failure and raised as pitr.lag. */
export async function notifyPitrLag(ctx: AppContext, organizationId: string, lag: PitrLagFacts) {
  const minutes = Math.floor(lag.seconds / 60);
  await Promise.all([
    notifyUser(
      ctx,
      organizationId,
      "notifyBackupFailure",
      `Point-in-time recovery behind: ${lag.databaseName}`,
      lag.unreachableSince
        ? [
            `The agent shipping "${lag.databaseName}"'s oplog can't reach the database since ${lag.unreachableSince}: writes made since then cannot be restored until it answers again.`,
            "Check that the database is running and reachable from the agent's machine (the agent's log, `dbvault-agent run`, says what failed). You hear again only if it falls behind after catching up.",
          ]
        : [
            `The agent shipping "${lag.databaseName}"'s oplog is ${minutes} minute${minutes === 1 ? "" : "s"} behind: the latest writes cannot be restored to the second until it catches up.`,
            "Check the agent's log (`dbvault-agent run`) for upload errors, and that its server reaches DBVault. You hear again only if it falls behind after catching up.",
          ],
    ),
    publishEvent(ctx, organizationId, { event: "pitr.lag", lag }),
  ]);
}

/** How many copies a mail names one by one; the rest are counted. */
const COPIES_IN_MAIL = 20;

/** What the mail of each copy event says: its subject's word, its opening line, and what to do. */
const COPY_MAIL = {
  "copy.missing": {
    word: "missing",
    found: (count: string) => `The agent's check found ${count} of your backups gone from your own bucket:`,
    advice:
      "The backups in DBVault are not affected. Check who can delete or overwrite objects in that bucket (its access keys, its lifecycle rules); the next backups are copied there again.",
  },
  "copy.changed": {
    word: "changed",
    found: (count: string) => `The agent's check found ${count} of your backups changed in your own bucket (other bytes than the agent wrote):`,
    advice:
      "The backups in DBVault are not affected. Check who can delete or overwrite objects in that bucket (its access keys, its lifecycle rules); the next backups are copied there again.",
  },
  "copy.unreachable": {
    word: "unreachable",
    found: (count: string) => `For a day the agent's check could not reach your own bucket, so ${count} of your backups there could not be checked:`,
    advice:
      "The backups in DBVault are not affected. Check that the bucket still exists and that the agent's credentials for it still work (dbvault-agent copies check shows the error). You hear again only if it stops answering after it answered again.",
  },
} as const;

/**
 * The daily check found copies in the customer's own buckets gone (`copy.missing`), holding other
 * bytes (`copy.changed`) or behind a bucket unreachable for a day (`copy.unreachable`): one mail
 * under Backup Failure and one webhook event for all of them.
 */
export async function notifyCopyProblems(ctx: AppContext, organizationId: string, event: keyof typeof COPY_MAIL, copies: CopyFacts[]) {
  if (copies.length === 0) return;
  const mail = COPY_MAIL[event];
  const databases = [...new Set(copies.map((copy) => `"${copy.databaseName}"`))].join(", ");
  const listed = copies.slice(0, COPIES_IN_MAIL).map((copy) => `- ${copy.key} in ${copy.destination.split("?")[0]} (backup ${copy.backupId}): ${copy.detail}`);
  const more = copies.length > COPIES_IN_MAIL ? [`- and ${copies.length - COPIES_IN_MAIL} more (dashboard → the database's copies)`] : [];
  await Promise.all([
    notifyUser(ctx, organizationId, "notifyBackupFailure", `Backup copies ${mail.word}: ${databases}`, [
      mail.found(copies.length === 1 ? "a copy" : `${copies.length} copies`),
      ...listed,
      ...more,
      "",
      mail.advice,
    ]),
    publishEvent(ctx, organizationId, { event, copies }),
  ]);
}
