import { eq } from "drizzle-orm";
import { type DrillFrequency, type RetentionMode, settings } from "@db/schema";
import {
  FREQUENCY_HOURS,
  type FrequencyWord,
  isFrequencyAllowed,
  isRetentionAllowed,
  normaliseFrequencyHours,
  RETENTION_OPTIONS_HOURS,
} from "@protocol/schedule";
import type { AppContext } from "../../context";
import type { CurrentOrganization } from "../organizations/current-organization";
import { AppError, badRequest } from "../../lib/errors";
import { type AuditActor, recordAudit } from "../audit/service";
import { refuseIfProtected } from "../backup-protection/check";
import { policyOf } from "../retention-rules/policy";
import { replaceApiKey } from "../organizations/api-key";
import type { AuthenticatedUser } from "../auth/guard";
import { planOfUser } from "../plans/service";
import { nextDrillTime } from "../drills/service";
import { rescheduleUser } from "../databases/schedule";

type SettingsRow = typeof settings.$inferSelect;

function toSettingsView(row: SettingsRow) {
  return {
    frequency: normaliseFrequencyHours(row.frequency),
    retention: row.retention,
    notifications: {
      backupSuccess: row.notifyBackupSuccess,
      backupFailure: row.notifyBackupFailure,
      agentDisconnection: row.notifyAgentDisconnection,
    },
    notificationEmail: row.notificationEmail,
    retentionMode: row.retentionMode,
    gfs: { daily: row.gfsDaily, weekly: row.gfsWeekly, monthly: row.gfsMonthly },
    drillFrequency: row.drillFrequency,
    nextDrillAt: row.nextDrillAt?.toISOString() ?? null,
  };
}

async function loadSettings(ctx: AppContext, organizationId: string): Promise<SettingsRow> {
  const [row] = await ctx.db.select().from(settings).where(eq(settings.organizationId, organizationId));
  if (row) return row;
  // Accounts created before settings existed get the defaults on first read.
  const [created] = await ctx.db.insert(settings).values({ organizationId }).onConflictDoNothing().returning();
  return created ?? (await loadSettings(ctx, organizationId));
}

export async function getSettings(ctx: AppContext, organizationId: string) {
  return toSettingsView(await loadSettings(ctx, organizationId));
}

type SettingsUpdate = {
  frequency?: string;
  retention?: number;
  notifications?: { backupSuccess?: boolean; backupFailure?: boolean; agentDisconnection?: boolean };
  notificationEmail?: string | null;
  retentionMode?: RetentionMode;
  gfs?: { daily: number; weekly: number; monthly: number };
  drillFrequency?: DrillFrequency;
};

/** Saves schedule, retention and notification choices; choices beyond the plan are refused. */
export async function updateSettings(ctx: AppContext, organization: CurrentOrganization, input: SettingsUpdate, actor?: AuditActor) {
  const current = await loadSettings(ctx, organization.id);
  const plan = await planOfUser(ctx.db, organization.planId);
  const next = { ...current };

  if (input.frequency !== undefined) {
    const hours = FREQUENCY_HOURS[input.frequency as FrequencyWord];
    if (!isFrequencyAllowed(hours, plan)) {
      throw new AppError(
        403,
        "PLAN_LIMIT",
        `Your ${plan.name} plan does not allow ${input.frequency} backups. Choose a less frequent schedule or upgrade your plan.`,
      );
    }
    next.frequency = hours;
  }
  if (input.retention !== undefined) {
    if (!(RETENTION_OPTIONS_HOURS as readonly number[]).includes(input.retention)) {
      throw badRequest(`retention must be one of ${RETENTION_OPTIONS_HOURS.join(", ")} hours`);
    }
    if (!isRetentionAllowed(input.retention, plan)) {
      throw new AppError(
        403,
        "PLAN_LIMIT",
        `Your ${plan.name} plan keeps backups for at most ${plan.retentionLimit / 24} days. Choose a shorter retention or upgrade your plan.`,
      );
    }
    next.retention = input.retention;
  }
  if (input.notifications) {
    next.notifyBackupSuccess = input.notifications.backupSuccess ?? current.notifyBackupSuccess;
    next.notifyBackupFailure = input.notifications.backupFailure ?? current.notifyBackupFailure;
    next.notifyAgentDisconnection = input.notifications.agentDisconnection ?? current.notifyAgentDisconnection;
  }
  if (input.notificationEmail !== undefined) {
    next.notificationEmail = input.notificationEmail ? input.notificationEmail.trim().toLowerCase() : null;
  }
  if (input.retentionMode !== undefined) next.retentionMode = input.retentionMode;
  if (input.gfs) {
    if (input.gfs.daily + input.gfs.weekly + input.gfs.monthly === 0) throw badRequest("GFS retention must keep at least one daily, weekly or monthly backup.");
    next.gfsDaily = input.gfs.daily;
    next.gfsWeekly = input.gfs.weekly;
    next.gfsMonthly = input.gfs.monthly;
  }
  if (input.drillFrequency !== undefined) next.drillFrequency = input.drillFrequency;

  const frequencyChanged = next.frequency !== current.frequency;
  const retentionChanged =
    next.retention !== current.retention ||
    next.retentionMode !== current.retentionMode ||
    next.gfsDaily !== current.gfsDaily ||
    next.gfsWeekly !== current.gfsWeekly ||
    next.gfsMonthly !== current.gfsMonthly;
  if (retentionChanged) await refuseIfProtected(ctx, organization.id, { kind: "change-retention", to: policyOf(next, plan) });
  const drillsChanged = next.drillFrequency !== current.drillFrequency;
  const notificationsChanged =
    next.notifyBackupSuccess !== current.notifyBackupSuccess ||
    next.notifyBackupFailure !== current.notifyBackupFailure ||
    next.notifyAgentDisconnection !== current.notifyAgentDisconnection ||
    next.notificationEmail !== current.notificationEmail;

  const [saved] = await ctx.db.transaction(async (tx) => {
    const rows = await tx
      .update(settings)
      .set({
        frequency: next.frequency,
        retention: next.retention,
        notifyBackupSuccess: next.notifyBackupSuccess,
        notifyBackupFailure: next.notifyBackupFailure,
        notifyAgentDisconnection: next.notifyAgentDisconnection,
        notificationEmail: next.notificationEmail,
        retentionMode: next.retentionMode,
        gfsDaily: next.gfsDaily,
        gfsWeekly: next.gfsWeekly,
        gfsMonthly: next.gfsMonthly,
        drillFrequency: next.drillFrequency,
        // A new policy is applied at the next retention pass; a new drill schedule starts from now.
        ...(retentionChanged ? { retentionCheckedAt: null } : {}),
        ...(drillsChanged ? { nextDrillAt: nextDrillTime(next.drillFrequency, ctx.now()) } : {}),
        updatedAt: ctx.now(),
      })
      .where(eq(settings.organizationId, organization.id))
      .returning();
    if (frequencyChanged) await recordAudit(tx, organization.id, "FREQUENCY_UPDATED", { from: current.frequency, to: next.frequency }, actor);
    if (retentionChanged) {
      await recordAudit(
        tx,
        organization.id,
        "RETENTION_UPDATED",
        {
          from: current.retention,
          to: next.retention,
          mode: next.retentionMode,
          ...(next.retentionMode === "gfs" ? { gfs: { daily: next.gfsDaily, weekly: next.gfsWeekly, monthly: next.gfsMonthly } } : {}),
        },
        actor,
      );
    }
    if (drillsChanged) await recordAudit(tx, organization.id, "DRILL_SETTINGS_UPDATED", { from: current.drillFrequency, to: next.drillFrequency }, actor);
    if (notificationsChanged) {
      await recordAudit(
        tx,
        organization.id,
        "NOTIFICATIONS_UPDATED",
        {
          backupSuccess: next.notifyBackupSuccess,
          backupFailure: next.notifyBackupFailure,
          agentDisconnection: next.notifyAgentDisconnection,
          notificationEmail: next.notificationEmail,
        },
        actor,
      );
    }
    await recordAudit(
      tx,
      organization.id,
      "SETTINGS_UPDATED",
      {
        frequency: next.frequency,
        retention: next.retention,
      },
      actor,
    );
    return rows;
  });
  if (frequencyChanged) await rescheduleUser(ctx, organization.id, next.frequency);
  return toSettingsView(saved!);
}

/** Replaces the user's API key; the old key stops registering agents at once. Returns the new key. */
export async function regenerateApiKey(ctx: AppContext, organizationId: string, actor?: AuditActor) {
  return { apiKey: await ctx.db.transaction((tx) => replaceApiKey(ctx, tx, organizationId, actor)) };
}

/** Sends a test e-mail to the notification address (or the account's). */
export async function sendTestNotification(ctx: AppContext, user: AuthenticatedUser, organizationId: string) {
  const current = await loadSettings(ctx, organizationId);
  const to = current.notificationEmail ?? user.email;
  try {
    await ctx.mailer.send({
      to,
      subject: "DBVault test notification",
      text: [
        "This is a test notification from DBVault.",
        "",
        "Backup success, backup failure and agent disconnection alerts for your account will arrive at this address.",
      ].join("\n"),
    });
  } catch (error) {
    ctx.log.error("test notification failed", { organizationId, error });
    throw new AppError(502, "MAIL_FAILED", "The test e-mail could not be sent. Please check the mail server settings and try again.");
  }
  return { message: "Test notification sent successfully. Please check your email.", to };
}
