import { and, count, eq, isNull } from "drizzle-orm";
import QRCode from "qrcode";
import type { DbOrTx } from "@db/client";
import { recoveryCodes, users } from "@db/schema";
import type { AppContext } from "../../context";
import { badRequest, conflict, forbidden } from "../../lib/errors";
import { recordAudit } from "../audit/service";
import { confirmCurrentPassword } from "../auth/password";
import { isTwoFactorOn, isTwoFactorRequired } from "../auth/second-factor";
import { admitCodeCheck } from "../auth/throttle";
import { endBrowserSessions } from "../../lib/browser-events";
import { newRecoveryCodes, normaliseRecoveryCode } from "../auth/recovery-codes";
import { matchTotpCode, newTotpSeed, totpUrl } from "../auth/totp";

type UserRow = typeof users.$inferSelect;

const invalidCode = () => badRequest("Invalid authentication code");

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
