import { and, count, eq, isNull, lt, or } from "drizzle-orm";
import QRCode from "qrcode";
import type { DbOrTx } from "@db/client";
import { recoveryCodes, users } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, badRequest, conflict, forbidden } from "../../lib/errors";
import { recordAudit } from "../audit/service";
import { confirmCurrentPassword } from "../auth/password";
import { admitCodeCheck } from "../auth/throttle";
import { endBrowserSessions } from "../../lib/browser-events";
import { looksLikeRecoveryCode, newRecoveryCodes, normaliseRecoveryCode } from "./recovery-codes";
import { matchTotpCode, newTotpSeed, totpUrl } from "./totp";

type UserRow = typeof users.$inferSelect;

const invalidCode = () => badRequest("Invalid authentication code");

export const isTwoFactorOn = (user: UserRow) => user.totpSecretCiphertext !== null;

/** Whether this server requires the user to sign in with two factors (REQUIRE_ADMIN_2FA, admins). */
export const isTwoFactorRequired = (ctx: AppContext, user: UserRow) => ctx.config.requireAdminTwoFactor && user.role === "admin";

export async function twoFactorStatus(ctx: AppContext, user: UserRow) {
  const [unused] = await ctx.db
    .select({ left: count() })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, user.id), isNull(recoveryCodes.usedAt)));
  return {
    enabled: isTwoFactorOn(user),
    enabledAt: user.totpEnabledAt?.toISOString() ?? null,
    recoveryCodesLeft: isTwoFactorOn(user) ? (unused?.left ?? 0) : 0,
    required: isTwoFactorRequired(ctx, user),
  };
}

/**
 * Step 1 of turning two-factor sign-in on: after the password, a new seed is kept as pending and
 * shown (QR code and text); it only takes effect once a code from it is confirmed.
 */
export async function startTwoFactorSetup(ctx: AppContext, user: UserRow, password: string) {
  if (isTwoFactorOn(user)) throw conflict("Two-factor sign-in is already on.");
  await confirmCurrentPassword(ctx, user, password);
  const seed = newTotpSeed();
  await ctx.db
    .update(users)
    .set({ totpPendingCiphertext: ctx.twoFactorBox.seal(seed), updatedAt: ctx.now() })
    .where(eq(users.id, user.id));
  const otpauthUrl = totpUrl(seed, user.email);
  const svg = await QRCode.toString(otpauthUrl, { type: "svg", errorCorrectionLevel: "M", margin: 1 });
  return { secret: seed, otpauthUrl, qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}` };
}

/** Replaces a user's recovery codes with a fresh set; answers them in the clear, once. */
async function replaceRecoveryCodes(ctx: AppContext, tx: DbOrTx, userId: string): Promise<string[]> {
  const codes = newRecoveryCodes();
  await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
  await tx.insert(recoveryCodes).values(codes.map((code) => ({ userId, codeHash: ctx.twoFactorBox.hash(normaliseRecoveryCode(code)) })));
  return codes;
}

/**
 * Step 2: a code from the pending seed turns two-factor sign-in on. Every other session ends
 * (they signed in with one factor); this one carries on with the token answered.
 */
export async function enableTwoFactor(ctx: AppContext, user: UserRow, code: string) {
  if (isTwoFactorOn(user)) throw conflict("Two-factor sign-in is already on.");
  const pending = user.totpPendingCiphertext;
  if (!pending) throw badRequest("Start the setup first: no two-factor secret is waiting to be confirmed.");
  const check = await admitCodeCheck(ctx, user);
  const step = matchTotpCode(ctx.twoFactorBox.open(pending), code.trim(), ctx.now());
  if (step === null) {
    await check.failed();
    throw invalidCode();
  }
  await check.succeeded();
  const tokenVersion = user.tokenVersion + 1;
  const codes = await ctx.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(users)
      .set({ totpSecretCiphertext: pending, totpPendingCiphertext: null, totpEnabledAt: ctx.now(), totpLastStep: step, tokenVersion, updatedAt: ctx.now() })
      // Only the seed this request checked: a setup restarted meanwhile must be confirmed anew.
      .where(and(eq(users.id, user.id), isNull(users.totpSecretCiphertext), eq(users.totpPendingCiphertext, pending)))
      .returning({ id: users.id });
    if (!updated) throw conflict("The two-factor setup changed meanwhile. Please start it again.");
    await recordAudit(tx, user.id, "TWO_FACTOR_ENABLED");
    return replaceRecoveryCodes(ctx, tx, user.id);
  });
  await endBrowserSessions(ctx, user.id, "two-factor sign-in turned on");
  return {
    message: "Two-factor sign-in is on. Keep your recovery codes somewhere safe.",
    recoveryCodes: codes,
    token: await ctx.tokens.issue(user.id, tokenVersion),
  };
}

/**
 * Accepts a second factor: a TOTP code (each 30-second step once, so a code seen over a
 * shoulder or replayed is refused) or an unused recovery code (spent). False when neither.
 * Every check counts against the account's code limit (auth/throttle.ts): 429 past it.
 */
export async function acceptSecondFactor(ctx: AppContext, user: UserRow, typed: string): Promise<boolean> {
  if (!user.totpSecretCiphertext) return false;
  const check = await admitCodeCheck(ctx, user);
  const accepted = await matchSecondFactor(ctx, user, user.totpSecretCiphertext, typed.trim());
  await (accepted ? check.succeeded() : check.failed());
  return accepted;
}

async function matchSecondFactor(ctx: AppContext, user: UserRow, sealedSeed: string, code: string): Promise<boolean> {
  if (looksLikeRecoveryCode(code)) {
    const spent = await ctx.db
      .update(recoveryCodes)
      .set({ usedAt: ctx.now() })
      .where(
        and(
          eq(recoveryCodes.userId, user.id),
          eq(recoveryCodes.codeHash, ctx.twoFactorBox.hash(normaliseRecoveryCode(code))),
          isNull(recoveryCodes.usedAt),
        ),
      )
      .returning({ id: recoveryCodes.id });
    if (spent.length === 0) return false;
    await recordAudit(ctx.db, user.id, "RECOVERY_CODE_USED");
    return true;
  }
  const step = matchTotpCode(ctx.twoFactorBox.open(sealedSeed), code, ctx.now());
  if (step === null) return false;
  // One atomic claim of the step: of two requests racing with one code, one wins.
  const claimed = await ctx.db
    .update(users)
    .set({ totpLastStep: step })
    .where(and(eq(users.id, user.id), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
    .returning({ id: users.id });
  return claimed.length > 0;
}

/** Sign-in's second step: throws 401 unless two-factor is off or `code` is accepted. */
export async function requireSecondFactor(ctx: AppContext, user: UserRow, code: string | undefined) {
  if (!isTwoFactorOn(user)) return;
  if (!code) {
    throw new AppError(401, "TWO_FACTOR_REQUIRED", "Enter the 6-digit code from your authenticator app, or a recovery code.", {
      twoFactorRequired: true,
    });
  }
  if (!(await acceptSecondFactor(ctx, user, code))) {
    throw new AppError(401, "UNAUTHORIZED", "Invalid authentication code", { twoFactorRequired: true });
  }
}

/** Turns two-factor sign-in off for a user and forgets their seed and recovery codes. */
export async function removeTwoFactor(ctx: AppContext, userId: string, by: "user" | "admin") {
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ totpSecretCiphertext: null, totpPendingCiphertext: null, totpEnabledAt: null, totpLastStep: null, updatedAt: ctx.now() })
      .where(eq(users.id, userId));
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
    await recordAudit(tx, userId, "TWO_FACTOR_DISABLED", { by });
  });
}

/** Throws when the user may not turn two-factor sign-in off: checked before the password and code are spent. */
export function refuseTurningOff(ctx: AppContext, user: UserRow) {
  if (!isTwoFactorOn(user)) throw conflict("Two-factor sign-in is already off.");
  if (isTwoFactorRequired(ctx, user)) throw forbidden("Two-factor sign-in is required for administrators on this server.");
}

/** The user turns two-factor sign-in off (once re-authenticated: reauthentication/service.ts). */
export async function disableTwoFactor(ctx: AppContext, user: UserRow) {
  refuseTurningOff(ctx, user);
  await removeTwoFactor(ctx, user.id, "user");
  return { message: "Two-factor sign-in is off." };
}

/** A new set of recovery codes (the old ones stop working), once re-authenticated. */
export async function regenerateRecoveryCodes(ctx: AppContext, user: UserRow) {
  if (!isTwoFactorOn(user)) throw conflict("Two-factor sign-in is off: there are no recovery codes.");
  const codes = await ctx.db.transaction(async (tx) => {
    await recordAudit(tx, user.id, "RECOVERY_CODES_REGENERATED");
    return replaceRecoveryCodes(ctx, tx, user.id);
  });
  return { message: "New recovery codes made. The old ones no longer work.", recoveryCodes: codes };
}
