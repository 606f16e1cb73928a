// A browser that has signed in to an account keeps a device token for it (issued at sign-in,
// sent back with the next sign-in): the proof that lets the owner through while a guesser's
// attempts slow the account down (auth/throttle.ts). It is signed, not stored: only this server
// can make one, and a token made for one account is worth nothing for another.
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { AppContext } from "../../context";

const macOf = (ctx: AppContext, userId: string, deviceId: string) => ctx.twoFactorBox.hash(`sign-in-device:${userId}:${deviceId}`).slice(0, 32);

/** A new device token for the account (or `presented` back, when it is already valid for it). */
export function deviceTokenFor(ctx: AppContext, userId: string, presented?: string): string {
  if (presented && knownDeviceId(ctx, userId, presented)) return presented;
  const deviceId = randomBytes(12).toString("base64url");
  return `${deviceId}.${macOf(ctx, userId, deviceId)}`;
}

/** The device's id when `token` was issued for this account by this server; null otherwise. */
export function knownDeviceId(ctx: AppContext, userId: string, token: string | undefined): string | null {
  const [deviceId, mac, extra] = token?.split(".") ?? [];
  if (!deviceId || !mac || extra !== undefined) return null;
  const expected = Buffer.from(macOf(ctx, userId, deviceId));
  const given = Buffer.from(mac);
  return expected.length === given.length && timingSafeEqual(expected, given) ? deviceId : null;
}
