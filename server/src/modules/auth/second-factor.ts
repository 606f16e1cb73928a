// The second factor of a sign-in or a re-authentication: whether a user has one, and checking a
// typed TOTP or recovery code (counted against the account's code limit). Turning it on and off
// is modules/two-factor; this part sits here so sign-in and re-authentication need nothing above.
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { recoveryCodes, users } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";
import { recordAudit } from "../audit/service";
import { looksLikeRecoveryCode, normaliseRecoveryCode } from "./recovery-codes";
import { admitCodeCheck } from "./throttle";
import { matchTotpCode } from "./totp";

type UserRow = typeof users.$inferSelect;

export const isTwoFactorOn = (user: UserRow) => user.totpSecretCiphertext !== null;

/** Whether this server requires the user to sign in with two factors (REQUIRE_ADMIN_2FA, admins). */
export const isTwoFactorRequired = (ctx: AppContext, user: UserRow) => ctx.config.requireAdminTwoFactor && user.role === "admin";

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
        and(eq(recoveryCodes.userId, user.id), eq(recoveryCodes.codeHash, ctx.twoFactorBox.hash(normaliseRecoveryCode(code))), isNull(recoveryCodes.usedAt)),
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
