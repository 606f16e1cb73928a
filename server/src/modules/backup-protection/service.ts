// "Protect backups" (Settings → Security): turning it on, asking to turn it off (7 days' wait,
// announced at once by e-mail and webhook), cancelling that. What it refuses is in check.ts.
import { and, eq, isNull } from "drizzle-orm";
import { backupProtections } from "@db/schema";
import type { AppContext } from "../../context";
import type { CurrentOrganization } from "../organizations/current-organization";
import { conflict } from "../../lib/errors";
import { actorOf, recordAudit } from "../audit/service";
import { alertRecipients } from "../organizations/recipients";
import type { AuthenticatedUser } from "../auth/guard";
import { isTwoFactorOn } from "../auth/second-factor";
import { queueMail } from "../mail/outbox";
import { planOfUser } from "../plans/service";
import { publishEvent } from "../webhooks/service";
import { formatWhen, type ProtectionState, protectionOf, TURN_OFF_WAIT_MS } from "./state";

const iso = (date: Date) => date.toISOString();

/** The policy as the Security tab and the admin console show it. */
export function toProtectionView(protection: ProtectionState) {
  return {
    state: protection.state,
    enabledAt: protection.state === "off" ? null : iso(protection.enabledAt),
    offRequestedAt: protection.state === "turning-off" ? iso(protection.offRequestedAt) : null,
    offAt: protection.state === "turning-off" ? iso(protection.offAt) : null,
    waitDays: TURN_OFF_WAIT_MS / (24 * 3_600_000),
  };
}

export async function getProtection(ctx: AppContext, organizationId: string) {
  return toProtectionView(await protectionOf(ctx, organizationId));
}

/** Turns the policy on (once re-authenticated); two-factor sign-in must be on, or a stolen password alone could turn it off. */
export async function turnProtectionOn(ctx: AppContext, user: AuthenticatedUser, organization: CurrentOrganization) {
  if (!isTwoFactorOn(user)) {
    throw conflict("Turn two-factor sign-in on first (Settings → Security): Protect backups needs it, so a stolen password alone cannot undo it.");
  }
  const current = await protectionOf(ctx, organization.id);
  if (current.state !== "off") throw conflict("Protect backups is already on.");
  await ctx.db.transaction(async (tx) => {
    // The plan's point-in-time window now is locked in (locked-window.ts).
    const { pitrWindowHours } = await planOfUser(tx, organization.planId);
    const [created] = await tx
      .insert(backupProtections)
      .values({ organizationId: organization.id, enabledAt: ctx.now(), pitrWindowHours })
      .onConflictDoNothing()
      .returning();
    if (!created) throw conflict("Protect backups is already on.");
    await recordAudit(tx, organization.id, "BACKUP_PROTECTION_ON", {}, actorOf(user, organization));
  });
  return {
    message: "Protect backups is on. Nobody can delete a backup before its retention ends or shorten retention.",
    protection: await getProtection(ctx, organization.id),
  };
}

/** Asks to turn the policy off (once re-authenticated): it stays in force for 7 days, and the owner hears of it at once. */
export async function requestProtectionOff(ctx: AppContext, user: AuthenticatedUser, organization: CurrentOrganization) {
  const current = await protectionOf(ctx, organization.id);
  if (current.state === "off") throw conflict("Protect backups is already off.");
  if (current.state === "turning-off") throw conflict(`Protect backups is already turning off, on ${formatWhen(current.offAt)}.`);
  const requestedAt = ctx.now();
  const offAt = new Date(requestedAt.getTime() + TURN_OFF_WAIT_MS);
  await ctx.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(backupProtections)
      .set({ offRequestedAt: requestedAt, offAt })
      .where(and(eq(backupProtections.organizationId, organization.id), isNull(backupProtections.offAt)))
      .returning();
    if (!updated) throw conflict("Protect backups changed meanwhile. Reload the page and try again.");
    await recordAudit(tx, organization.id, "BACKUP_PROTECTION_OFF_REQUESTED", { offAt: iso(offAt) }, actorOf(user, organization));
  });
  await announceTurningOff(ctx, organization.id, requestedAt, offAt);
  return {
    message: `Protect backups turns off on ${formatWhen(offAt)}. Until then it stays in force, and you can cancel.`,
    protection: await getProtection(ctx, organization.id),
  };
}

/**
 * Cancels a waiting turn-off. No re-authentication: cancelling only keeps the protection, and the
 * owner alarmed by the e-mail must be able to do it from any session at once.
 */
export async function cancelProtectionOff(ctx: AppContext, user: AuthenticatedUser, organization: CurrentOrganization) {
  const current = await protectionOf(ctx, organization.id);
  if (current.state !== "turning-off") throw conflict("No request to turn Protect backups off is waiting.");
  await ctx.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(backupProtections)
      .set({ offRequestedAt: null, offAt: null })
      .where(and(eq(backupProtections.organizationId, organization.id), eq(backupProtections.offAt, current.offAt)))
      .returning();
    if (!updated) throw conflict("Protect backups changed meanwhile. Reload the page and try again.");
    await recordAudit(tx, organization.id, "BACKUP_PROTECTION_OFF_CANCELLED", { offAt: iso(current.offAt) }, actorOf(user, organization));
  });
  return { message: "Turning Protect backups off was cancelled. It stays on.", protection: await getProtection(ctx, organization.id) };
}

/**
 * E-mail to the owners' and admins' own addresses (not the notification address, which a thief
 * could have changed quietly) and the webhook event.
 */
async function announceTurningOff(ctx: AppContext, organizationId: string, requestedAt: Date, offAt: Date) {
  for (const owner of await alertRecipients(ctx.db, organizationId)) {
    await queueMail(ctx, {
      to: owner.email,
      subject: "Protect backups will turn off in 7 days",
      text: [
        `Someone signed in to your DBVault account asked on ${formatWhen(requestedAt)} to turn Protect backups off.`,
        `It takes effect on ${formatWhen(offAt)}. Until then your backups stay protected.`,
        "",
        "If it was not you, cancel it now in Settings → Security, then change your password:",
        `${ctx.config.publicUrl}/settings?tab=security`,
      ].join("\n"),
    }).catch((error) => ctx.log.error("protection mail could not be queued", { organizationId, error }));
  }
  await publishEvent(ctx, organizationId, {
    event: "backup_protection.off_requested",
    protection: { state: "turning-off", requestedAt: iso(requestedAt), offAt: iso(offAt) },
  });
}
