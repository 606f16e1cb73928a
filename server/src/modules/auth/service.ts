import { createHash, randomBytes } from "node:crypto";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { type MemberRole, memberships, organizations, passwordResetTokens, settings, users } from "@db/schema";
import type { AppContext } from "../../context";
import { type AppError, badRequest, conflict, unauthorized } from "../../lib/errors";
import { findDefaultPlan } from "../plans/service";
import { apiKeyShownTo, newApiKeyColumns } from "../organizations/api-key";
import { currentOrganization } from "../organizations/current-organization";
import { endBrowserSessions } from "../../lib/browser-events";
import { queueMail } from "../mail/outbox";
import { acceptSecondFactor, isTwoFactorOn, isTwoFactorRequired, requireSecondFactor } from "./second-factor";
import { accountRefusal } from "./guard";
import { revokeAccountApiTokens } from "./api-tokens";
import { deviceTokenFor, knownDeviceId } from "./known-devices";
import { mailSecurityNotice } from "./security-mail";
import { hashPassword, verifyPassword } from "./password";
import { admitRegistration, admitResetRequest, admitSignIn } from "./throttle";
import { refusePasswordWhereSsoRequired } from "../organizations/sso-required";
import { refuseMultiLine } from "../../lib/single-line";

export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;
export const FORGOT_PASSWORD_MESSAGE = "If an account with that email exists, a password reset link has been sent.";

type UserRow = typeof users.$inferSelect;

/** The user as sign-in answers it (spec section 3). */
export function toSessionUser(ctx: AppContext, user: UserRow, apiKey: string) {
  return {
    id: user.id,
    _id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    /** The current organization's (organizations/api-key.ts apiKeyShownTo). */
    apiKey,
    isBanned: user.isBanned,
    banReason: user.banReason,
    bannedAt: user.bannedAt?.toISOString() ?? null,
    twoFactorEnabled: isTwoFactorOn(user),
    /** The server requires this user to turn two-factor sign-in on (REQUIRE_ADMIN_2FA). */
    twoFactorRequired: isTwoFactorRequired(ctx, user),
  };
}

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/**
 * Creates an account on the default free plan, with settings, an API key and its personal
 * organization (sharing its id, db/schema/organizations.ts), and, with `joining`, its membership
 * of another organization in the same transaction. Throws 409 if the e-mail is taken.
 */
export async function createUser(
  ctx: AppContext,
  input: {
    name: string;
    email: string;
    password: string;
    role?: "user" | "admin";
    joining?: { organizationId: string; role: MemberRole };
    /** The organization whose single sign-on creates the account: it is bound to it. */
    ssoCreatedBy?: string;
  },
): Promise<UserRow> {
  const email = normaliseEmail(input.email);
  const [existing] = await ctx.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  if (existing) throw conflict("An account with this email already exists.");
  const plan = await findDefaultPlan(ctx.db);
  const apiKey = newApiKeyColumns(ctx).columns;
  const passwordHash = await hashPassword(input.password);
  return ctx.db.transaction(async (tx) => {
    const [user] = await tx
      .insert(users)
      .values({
        name: input.name.trim(),
        email,
        passwordHash,
        role: input.role ?? "user",
        ...(input.ssoCreatedBy ? { ssoOrganizationId: input.ssoCreatedBy, ssoLink: "created" as const } : {}),
      })
      .onConflictDoNothing({ target: users.email })
      .returning();
    // Two registrations racing for one address: the loser lands here.
    if (!user) throw conflict("An account with this email already exists.");
    await tx.insert(organizations).values({ id: user.id, name: user.name || user.email, personal: true, planId: plan.id, ...apiKey });
    await tx.insert(memberships).values({ organizationId: user.id, userId: user.id, role: "owner" });
    if (input.joining) await tx.insert(memberships).values({ ...input.joining, userId: user.id });
    await tx.insert(settings).values({ organizationId: user.id });
    return user;
  });
}

export async function register(ctx: AppContext, input: { name: string; email: string; password: string; clientIp: string }) {
  refuseMultiLine(input.name, "name");
  await admitRegistration(ctx, input.clientIp);
  const user = await createUser(ctx, input);
  ctx.log.info("user registered", { userId: user.id });
  return issueSession(ctx, user, undefined);
}

/**
 * Signs in with e-mail and password, and a code when the account has two-factor sign-in on.
 * An attempt stays counted by the throttle until both factors pass, so codes cannot be guessed
 * faster than passwords. `device` is the token this browser got at its last sign-in to the account.
 */
export async function login(ctx: AppContext, input: { email: string; password: string; code?: string; device?: string; clientIp: string }) {
  const email = normaliseEmail(input.email);
  const [user] = await ctx.db.select().from(users).where(eq(users.email, email));
  const knownDevice = user ? knownDeviceId(ctx, user.id, input.device) : null;
  const attempt = await admitSignIn(ctx, email, input.clientIp, knownDevice);
  if (!attempt.admitted) return signInPastTheLimits(ctx, user, input, attempt.refusal);
  const ok = await verifyPassword(input.password, user?.passwordHash ?? null);
  if (!user || !ok) throw unauthorized("Invalid email or password");
  // Told only to whoever knows the password: a banned account gets its reason, not a token.
  const refused = accountRefusal(user);
  if (refused) throw refused;
  // After the password, so only its holder learns the organization requires SSO.
  await refusePasswordWhereSsoRequired(ctx.db, user);
  await requireSecondFactor(ctx, user, input.code);
  await attempt.succeeded();
  return issueSession(ctx, user, input.device);
}

/**
 * A sign-in's answer: a session token (of at most `maxHours`; scoped to `organizationId` when
 * single sign-on opened it), the user, and this browser's device token.
 */
export async function issueSession(ctx: AppContext, user: UserRow, device: string | undefined, scoped?: { maxHours: number; organizationId: string }) {
  // A new session starts in the user's personal organization (the web app switches from there),
  // or in the one organization a scoped session reaches.
  const organization = await currentOrganization(ctx.db, user.id, scoped?.organizationId);
  return {
    token: await ctx.tokens.issue(user.id, user.tokenVersion, undefined, scoped?.maxHours, { organizationId: scoped?.organizationId }),
    user: toSessionUser(ctx, user, await apiKeyShownTo(ctx, organization)),
    deviceToken: deviceTokenFor(ctx, user.id, device),
  };
}

/**
 * An attempt the limits refused still passes with both factors right (the owner with a second
 * factor is never locked out by a guesser); anything else, a right password included, gets the
 * same 429, so a refused guess learns nothing.
 */
async function signInPastTheLimits(ctx: AppContext, user: UserRow | undefined, input: { password: string; code?: string; device?: string }, refusal: AppError) {
  if (!user || !isTwoFactorOn(user) || !input.code || accountRefusal(user)) throw refusal;
  if (!(await verifyPassword(input.password, user.passwordHash))) throw refusal;
  await refusePasswordWhereSsoRequired(ctx.db, user);
  const accepted = await acceptSecondFactor(ctx, user, input.code).catch(() => false);
  if (!accepted) throw refusal;
  return issueSession(ctx, user, input.device);
}

/** How a single-use link's token is stored (reset links, e-mail change links): only its hash. */
export const hashLinkToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** A new random token for a single-use link. */
export const newLinkToken = () => randomBytes(32).toString("base64url");

/**
 * Mails a single-use reset link when the account exists; answers the same either way, and as
 * fast: the link is stored and mailed after the answer, so timing does not tell whether an
 * address has an account.
 */
export async function forgotPassword(ctx: AppContext, input: { email: string; clientIp: string }) {
  const email = normaliseEmail(input.email);
  await admitResetRequest(ctx, email, input.clientIp);
  const [user] = await ctx.db.select().from(users).where(eq(users.email, email));
  // A banned or inactive account gets no link (the answer is the same, so nobody learns which).
  if (user && !accountRefusal(user)) void ctx.pendingWork.track(sendResetLink(ctx, user));
  return { message: FORGOT_PASSWORD_MESSAGE };
}

/**
 * Stores a reset token and queues the mail with its link, retried while the mail server is down
 * until the link expires; never throws (the operator sees failures in the log).
 */
async function sendResetLink(ctx: AppContext, user: { id: string; email: string }) {
  try {
    const token = newLinkToken();
    // Only the newest link works: one mailed earlier (perhaps to a mailbox read by someone else) stops.
    await ctx.db.transaction(async (tx) => {
      await revokeResetLinks(tx, user.id, ctx.now());
      await tx.insert(passwordResetTokens).values({
        userId: user.id,
        tokenHash: hashLinkToken(token),
        expiresAt: new Date(ctx.now().getTime() + RESET_TOKEN_TTL_MS),
      });
    });
    await queueMail(
      ctx,
      {
        to: user.email,
        subject: "Reset your DBVault password",
        text: [
          `Someone asked to reset the password of your DBVault account (${user.email}).`,
          "",
          `To choose a new password, open this link within one hour:`,
          `${ctx.config.publicUrl}/reset-password/${token}`,
          "",
          "If it was not you, ignore this message: your password stays as it is.",
        ].join("\n"),
      },
      { giveUpAfterMs: RESET_TOKEN_TTL_MS },
    );
  } catch (error) {
    ctx.log.error("password reset mail failed", { userId: user.id, error });
  }
}

async function findUsableResetToken(ctx: AppContext, token: string) {
  const [row] = await ctx.db
    .select()
    .from(passwordResetTokens)
    .where(and(eq(passwordResetTokens.tokenHash, hashLinkToken(token)), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, ctx.now())));
  return row ?? null;
}

export async function checkResetToken(ctx: AppContext, token: string) {
  if (!(await findUsableResetToken(ctx, token))) throw badRequest("Invalid or expired reset token");
  return { valid: true, message: "Reset token is valid" };
}

/** Ends every reset link of a user not used yet: after a reset or a password change, none may work. */
export async function revokeResetLinks(db: DbOrTx, userId: string, now: Date): Promise<void> {
  await db
    .update(passwordResetTokens)
    .set({ usedAt: now })
    .where(and(eq(passwordResetTokens.userId, userId), isNull(passwordResetTokens.usedAt)));
}

/** Sets a new password with a reset token, once; every session of the account ends. */
export async function resetPassword(ctx: AppContext, input: { token: string; password: string; revokeApiTokens: boolean }) {
  const passwordHash = await hashPassword(input.password);
  const tokenHash = hashLinkToken(input.token);
  const used = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(passwordResetTokens)
      .set({ usedAt: ctx.now() })
      .where(and(eq(passwordResetTokens.tokenHash, tokenHash), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, ctx.now())))
      .returning();
    if (!row) return null;
    const [user] = await tx.select().from(users).where(eq(users.id, row.userId));
    // A link mailed before a ban does not get the banned account a new password.
    const refused = user ? accountRefusal(user) : null;
    if (refused) throw refused;
    await revokeResetLinks(tx, row.userId, ctx.now());
    // An account single sign-on created (perhaps before its real owner came) does not merge with
    // the person who now proves the mailbox: that provider stops signing it in.
    const ssoCreated = user?.ssoLink === "created";
    await tx
      .update(users)
      .set({
        passwordHash,
        tokenVersion: (user?.tokenVersion ?? 0) + 1,
        updatedAt: ctx.now(),
        ...(ssoCreated ? { ssoOrganizationId: null, ssoLink: "cut" as const } : {}),
      })
      .where(eq(users.id, row.userId));
    const revokedApiTokens = input.revokeApiTokens ? await revokeAccountApiTokens(tx, row.userId) : 0;
    return { userId: row.userId, email: user?.email ?? "", ssoCreated, revokedApiTokens };
  });
  if (!used) throw badRequest("Invalid or expired reset token");
  await endBrowserSessions(ctx, used.userId, "password reset");
  await mailSecurityNotice(ctx, { id: used.userId, email: used.email }, "Your password was reset", used.revokedApiTokens);
  return {
    message: used.ssoCreated
      ? `${SSO_CREATED_RESET_MESSAGE} You can now sign in with your new password.`
      : "Your password has been reset. You can now sign in with your new password.",
  };
}

/**
 * Signs the user out everywhere: every token issued so far stops working (the token version
 * moves on) and their open browser sockets close.
 */
export async function logout(ctx: AppContext, user: { id: string; email: string }, options: { revokeApiTokens: boolean }) {
  const revokedApiTokens = await ctx.db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ tokenVersion: sql`${users.tokenVersion} + 1`, updatedAt: ctx.now() })
      .where(eq(users.id, user.id));
    return options.revokeApiTokens ? revokeAccountApiTokens(tx, user.id) : 0;
  });
  await endBrowserSessions(ctx, user.id, "signed out");
  if (options.revokeApiTokens) await mailSecurityNotice(ctx, user, "You signed out everywhere", revokedApiTokens);
  return { message: revokedApiTokens > 0 ? `Signed out everywhere; ${revokedApiTokens} API token(s) revoked.` : "Signed out" };
}

export const SSO_CREATED_RESET_MESSAGE =
  "Your password has been reset. This account was created by an organization's single sign-on before you set a password: that single sign-on no longer signs it in, and you may leave that organization in Settings → Organization.";
