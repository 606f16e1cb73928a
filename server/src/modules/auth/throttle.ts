// Limits on the routes an attacker can hammer: sign-in, registration, password recovery and the
// current-password check of a password change. Counters live in the database (lib/rate-limiter),
// so they hold across server instances.
import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";
import { secondsUntil } from "../../lib/rate-limiter";
import { queueMail } from "../mail/outbox";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const SIGN_IN_WINDOW_MS = 15 * MINUTE;
/** Sign-in attempts that did not succeed, from one address, for any accounts. */
export const SIGN_IN_ATTEMPTS_PER_ADDRESS = 50;
/** Attempts on one account from one address before each further one waits 1 s, 2 s, 4 s… */
export const SIGN_IN_FREE_ATTEMPTS_PER_ACCOUNT_AND_ADDRESS = 5;
export const SIGN_IN_MAX_DELAY_SECONDS = 15 * 60;
/**
 * Attempts on one account from all addresses together before each further one waits 1 s, 2 s,
 * 4 s… (at most SIGN_IN_MAX_DELAY_SECONDS). Only the first SIGN_IN_FREE_ATTEMPTS_PER_ACCOUNT_AND_ADDRESS
 * attempts of each address count here: one address guessing is slowed by its own limit, so it
 * cannot slow the owner down elsewhere; many addresses guessing slow the account down.
 */
export const SIGN_IN_ATTEMPTS_PER_ACCOUNT = 20;
/** The account's count starts again a day after its first attempt (not 15 minutes: a guesser would wait that out). */
export const SIGN_IN_ACCOUNT_WINDOW_MS = 24 * HOUR;
/** A browser that signed in to the account before (known-devices.ts): its wrong passwords wait at most this. */
export const SIGN_IN_KNOWN_DEVICE_MAX_DELAY_SECONDS = 30;
export const PASSWORD_CHECKS_PER_USER = 10;
export const RESET_REQUESTS_PER_ADDRESS = 10;
export const RESET_REQUESTS_PER_ACCOUNT = 3;
/**
 * Second-factor codes checked for one account, from any address or session, before each further
 * check waits 1 s, 2 s, 4 s… (at most CODE_CHECK_MAX_DELAY_SECONDS); a right code clears it.
 */
export const CODE_CHECKS_FREE_PER_ACCOUNT = 5;
export const CODE_CHECK_WINDOW_MS = 24 * HOUR;
export const CODE_CHECK_MAX_DELAY_SECONDS = 15 * 60;

/** "Sign in with SSO" starts per address per SIGN_IN_WINDOW_MS: each stores a sign-in and calls the provider. */
export const SSO_STARTS_PER_ADDRESS = 30;

/** Registrations per address per hour: config.registrationsPerHour. */
export const REGISTRATION_WINDOW_MS = HOUR;

function tooMany(retryAfter: number, what: string) {
  const wait = `${retryAfter} second${retryAfter === 1 ? "" : "s"}`;
  return new AppError(429, "RATE_LIMITED", `Too many ${what}. Please wait ${wait} and try again.`, { retryAfter });
}

/** Refuses the request when `key` has passed `limit` hits in its window. */
async function countAgainst(ctx: AppContext, key: string, windowMs: number, limit: number, what: string) {
  const hit = await ctx.rateLimiter.hit(key, windowMs);
  if (hit.count > limit) throw tooMany(secondsUntil(hit.windowEndsAt, ctx.now()), what);
  return hit;
}

/** A sign-in attempt the limits let through (call `succeeded` once both factors passed), or refused with its 429. */
export type SignInAdmission = { admitted: true; succeeded(): Promise<void> } | { admitted: false; refusal: AppError };

const refusedSignIn = (retryAfter: number): SignInAdmission => ({ admitted: false, refusal: tooMany(retryAfter, "sign-in attempts for this account") });

/**
 * Counts one sign-in attempt: per address, per (account, address) with growing delays, and per
 * account (see SIGN_IN_ATTEMPTS_PER_ACCOUNT). An attempt from a browser that signed in to this
 * account before (`knownDevice`) counts only against that browser, with short waits: the owner is
 * not held back by a guesser, even one behind the same address. `succeeded` takes the attempt back.
 */
export async function admitSignIn(ctx: AppContext, email: string, address: string, knownDevice: string | null): Promise<SignInAdmission> {
  if (knownDevice) {
    const deviceKey = `sign-in-device:${knownDevice}`;
    const hit = await ctx.rateLimiter.spacedHit(
      deviceKey,
      SIGN_IN_WINDOW_MS,
      SIGN_IN_FREE_ATTEMPTS_PER_ACCOUNT_AND_ADDRESS,
      SIGN_IN_KNOWN_DEVICE_MAX_DELAY_SECONDS,
    );
    if (!hit.admitted) return refusedSignIn(hit.retryAfter);
    return { admitted: true, succeeded: () => ctx.rateLimiter.reset(deviceKey) };
  }
  const addressKey = `sign-in-address:${address}`;
  const pairKey = `sign-in-pair:${email}|${address}`;
  const accountKey = `sign-in-account:${email}`;
  await countAgainst(ctx, addressKey, SIGN_IN_WINDOW_MS, SIGN_IN_ATTEMPTS_PER_ADDRESS, "sign-in attempts from your network");
  const pair = await ctx.rateLimiter.spacedHit(pairKey, SIGN_IN_WINDOW_MS, SIGN_IN_FREE_ATTEMPTS_PER_ACCOUNT_AND_ADDRESS, SIGN_IN_MAX_DELAY_SECONDS);
  if (!pair.admitted) return refusedSignIn(pair.retryAfter);
  const countsForAccount = pair.count <= SIGN_IN_FREE_ATTEMPTS_PER_ACCOUNT_AND_ADDRESS;
  if (countsForAccount) {
    const account = await ctx.rateLimiter.spacedHit(accountKey, SIGN_IN_ACCOUNT_WINDOW_MS, SIGN_IN_ATTEMPTS_PER_ACCOUNT, SIGN_IN_MAX_DELAY_SECONDS);
    if (!account.admitted) {
      await ctx.rateLimiter.forgive(pairKey);
      return refusedSignIn(account.retryAfter);
    }
  }
  return {
    admitted: true,
    async succeeded() {
      await ctx.rateLimiter.reset(pairKey);
      await ctx.rateLimiter.forgive(addressKey);
      if (countsForAccount) await ctx.rateLimiter.forgive(accountKey);
    },
  };
}

export async function admitRegistration(ctx: AppContext, address: string) {
  await countAgainst(ctx, `register-address:${address}`, REGISTRATION_WINDOW_MS, ctx.config.registrationsPerHour, "registrations from your network");
}

export async function admitResetRequest(ctx: AppContext, email: string, address: string) {
  await countAgainst(ctx, `reset-address:${address}`, HOUR, RESET_REQUESTS_PER_ADDRESS, "password reset requests from your network");
  await countAgainst(ctx, `reset-account:${email}`, HOUR, RESET_REQUESTS_PER_ACCOUNT, "password reset requests for this account");
}

/** Counts a current-password check of a password change; `succeeded` takes it back. */
export async function admitPasswordCheck(ctx: AppContext, userId: string) {
  const key = `password-check:${userId}`;
  await countAgainst(ctx, key, SIGN_IN_WINDOW_MS, PASSWORD_CHECKS_PER_USER, "wrong current passwords");
  return { succeeded: () => ctx.rateLimiter.forgive(key) };
}

/**
 * Admits one check of a TOTP or recovery code for an account or throws 429, wherever the check
 * happens (sign-in, re-authentication, two-factor settings). `failed` tells the owner by e-mail
 * once the free checks are used up; `succeeded` clears the count.
 */
export async function admitCodeCheck(ctx: AppContext, user: { id: string; email: string }) {
  const key = `code-check:${user.id}`;
  const hit = await ctx.rateLimiter.spacedHit(key, CODE_CHECK_WINDOW_MS, CODE_CHECKS_FREE_PER_ACCOUNT, CODE_CHECK_MAX_DELAY_SECONDS);
  if (!hit.admitted) throw tooMany(hit.retryAfter, "wrong authentication codes for this account");
  return {
    succeeded: () => ctx.rateLimiter.reset(key),
    async failed() {
      if (hit.count === CODE_CHECKS_FREE_PER_ACCOUNT) await tellOwnerOfWrongCodes(ctx, user);
    },
  };
}

async function tellOwnerOfWrongCodes(ctx: AppContext, user: { id: string; email: string }) {
  ctx.log.warn("wrong two-factor codes for an account", { userId: user.id, count: CODE_CHECKS_FREE_PER_ACCOUNT });
  await queueMail(ctx, {
    to: user.email,
    subject: "Wrong two-factor codes entered for your DBVault account",
    text: [
      `${CODE_CHECKS_FREE_PER_ACCOUNT} wrong two-factor codes were just entered for your DBVault account (${user.email}).`,
      "Each further attempt now has to wait longer.",
      "",
      "If this was not you, someone may know your password or hold one of your signed-in sessions.",
      `Change your password in Profile → Security (${ctx.config.publicUrl}/profile): every session is signed out.`,
    ].join("\n"),
  });
}

/** Counts a "Sign in with SSO" start from an address; 429 past SSO_STARTS_PER_ADDRESS. */
export async function admitSsoStart(ctx: AppContext, address: string): Promise<void> {
  await countAgainst(ctx, `sso-start-address:${address}`, SIGN_IN_WINDOW_MS, SSO_STARTS_PER_ADDRESS, "single sign-on attempts from this address");
}
