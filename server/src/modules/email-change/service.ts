// Changing the e-mail is how a stolen session becomes a stolen account (new e-mail, reset link,
// owner locked out). So a change needs the password (and a code), takes effect only once the new
// address confirms it, and the old address is told, with a link that undoes it for 7 days.
import { and, eq, gt, isNull, ne, sql } from "drizzle-orm";
import { emailChanges, users } from "@db/schema";
import type { AppContext } from "../../context";
import { badRequest, conflict } from "../../lib/errors";
import { recordAudit } from "../audit/service";
import type { AuthenticatedUser } from "../auth/guard";
import { hashLinkToken, newLinkToken, revokeResetLinks } from "../auth/service";
import { queueMail } from "../mail/outbox";
import { endBrowserSessions } from "../../lib/browser-events";

export const EMAIL_CONFIRM_TTL_MS = 24 * 60 * 60 * 1000;
export const EMAIL_UNDO_TTL_MS = 7 * 24 * 60 * 60 * 1000;

async function refuseTakenEmail(ctx: AppContext, email: string, userId: string) {
  const [taken] = await ctx.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.email, email), ne(users.id, userId)));
  if (taken) throw conflict("An account with this email already exists.");
}

/**
 * Records a change to `newEmail` (the caller has re-authenticated) and mails both addresses. A
 * change asked earlier and not confirmed yet is replaced; open reset links stop working.
 */
export async function requestEmailChange(ctx: AppContext, user: AuthenticatedUser, newEmail: string) {
  await refuseTakenEmail(ctx, newEmail, user.id);
  const confirmToken = newLinkToken();
  const undoToken = newLinkToken();
  const now = ctx.now();
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(emailChanges)
      .set({ cancelledAt: now })
      .where(and(eq(emailChanges.userId, user.id), isNull(emailChanges.confirmedAt), isNull(emailChanges.cancelledAt)));
    await tx.insert(emailChanges).values({
      userId: user.id,
      oldEmail: user.email,
      newEmail,
      confirmTokenHash: hashLinkToken(confirmToken),
      undoTokenHash: hashLinkToken(undoToken),
      confirmExpiresAt: new Date(now.getTime() + EMAIL_CONFIRM_TTL_MS),
      undoExpiresAt: new Date(now.getTime() + EMAIL_UNDO_TTL_MS),
    });
    await revokeResetLinks(tx, user.id, now);
    await recordAudit(tx, user.id, "EMAIL_CHANGE_REQUESTED", { from: user.email, to: newEmail });
  });
  const base = ctx.config.publicUrl;
  await queueMail(
    ctx,
    {
      to: newEmail,
      subject: "Confirm your new DBVault e-mail",
      text: [
        `You asked to use ${newEmail} for your DBVault account (now ${user.email}).`,
        "",
        "To confirm, open this link within 24 hours:",
        `${base}/email-change/confirm/${confirmToken}`,
        "",
        "If it was not you, ignore this message: nothing changes.",
      ].join("\n"),
    },
    { giveUpAfterMs: EMAIL_CONFIRM_TTL_MS },
  );
  await queueMail(
    ctx,
    {
      to: user.email,
      subject: "Your DBVault e-mail is being changed",
      text: [
        `Someone signed in to your DBVault account asked to change its e-mail from ${user.email} to ${newEmail}.`,
        "It changes once the new address confirms it.",
        "",
        "If it was not you, open this link within 7 days: it undoes the change and signs out every session.",
        `${base}/email-change/undo/${undoToken}`,
        "Then sign in and change your password.",
      ].join("\n"),
    },
    { giveUpAfterMs: EMAIL_UNDO_TTL_MS },
  );
}

/** The new address's link: the e-mail changes now (once). */
export async function confirmEmailChange(ctx: AppContext, token: string) {
  const now = ctx.now();
  const [change] = await ctx.db
    .select()
    .from(emailChanges)
    .where(
      and(
        eq(emailChanges.confirmTokenHash, hashLinkToken(token)),
        isNull(emailChanges.confirmedAt),
        isNull(emailChanges.cancelledAt),
        gt(emailChanges.confirmExpiresAt, now),
      ),
    );
  if (!change) throw badRequest("This link is invalid or has expired. Ask for the change again in Profile → Account.");
  await refuseTakenEmail(ctx, change.newEmail, change.userId);
  await ctx.db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(emailChanges)
      .set({ confirmedAt: now })
      .where(and(eq(emailChanges.id, change.id), isNull(emailChanges.confirmedAt), isNull(emailChanges.cancelledAt)))
      .returning({ id: emailChanges.id });
    if (!claimed) throw badRequest("This link is invalid or has expired. Ask for the change again in Profile → Account.");
    // Only from the address the change was asked from: an admin may have changed it meanwhile.
    const [changed] = await tx
      .update(users)
      .set({ email: change.newEmail, updatedAt: now })
      .where(and(eq(users.id, change.userId), eq(users.email, change.oldEmail)))
      .returning({ id: users.id });
    if (!changed) throw conflict("The account's e-mail changed meanwhile. Ask for the change again in Profile → Account.");
    await revokeResetLinks(tx, change.userId, now);
    await recordAudit(tx, change.userId, "EMAIL_CHANGED", { from: change.oldEmail, to: change.newEmail });
  });
  return { message: `Your e-mail is now ${change.newEmail}. Use it to sign in.` };
}

/**
 * The old address's link, for 7 days: cancels the change or, once confirmed, puts the old e-mail
 * back; every session ends (whoever asked for the change may hold one) and reset links stop.
 */
export async function undoEmailChange(ctx: AppContext, token: string) {
  const now = ctx.now();
  const invalid = () => badRequest("This link is invalid or has expired. If your account was taken over, contact support.");
  const change = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(emailChanges)
      .set({ cancelledAt: now })
      .where(and(eq(emailChanges.undoTokenHash, hashLinkToken(token)), isNull(emailChanges.cancelledAt), gt(emailChanges.undoExpiresAt, now)))
      .returning();
    if (!row) throw invalid();
    if (row.confirmedAt) {
      const [taken] = await tx
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.email, row.oldEmail), ne(users.id, row.userId)));
      if (taken) throw conflict("Your old e-mail now belongs to another account. Contact support to get your account back.");
      const [back] = await tx
        .update(users)
        .set({ email: row.oldEmail, updatedAt: now })
        .where(and(eq(users.id, row.userId), eq(users.email, row.newEmail)))
        .returning({ id: users.id });
      if (!back) throw conflict("The account's e-mail changed again since. Contact support to get your account back.");
    }
    await tx
      .update(users)
      .set({ tokenVersion: sql`${users.tokenVersion} + 1`, updatedAt: now })
      .where(eq(users.id, row.userId));
    await revokeResetLinks(tx, row.userId, now);
    await recordAudit(tx, row.userId, "EMAIL_CHANGE_UNDONE", { from: row.newEmail, to: row.oldEmail });
    return row;
  });
  await endBrowserSessions(ctx, change.userId, "e-mail change undone");
  return {
    message: `The change was undone: your e-mail is ${change.oldEmail}, and every session was signed out. Sign in and change your password.`,
  };
}
