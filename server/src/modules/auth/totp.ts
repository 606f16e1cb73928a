// Time-based one-time passwords (RFC 6238) as authenticator apps compute them: HMAC-SHA1,
// 6 digits, 30-second steps. The arithmetic is otpauth's; this file fixes the parameters.
import { Secret, TOTP } from "otpauth";

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of now that are accepted, for clocks a little off. */
const ACCEPTED_DRIFT_STEPS = 1;
const ISSUER = "DBVault";

const totpFor = (seed: string, accountName = "") =>
  new TOTP({
    issuer: ISSUER,
    label: accountName,
    algorithm: "SHA1",
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(seed),
  });

/** A new random seed (160 bits, the size RFC 4226 recommends), base32 as apps expect it. */
export const newTotpSeed = () => new Secret({ size: 20 }).base32;

/** The `otpauth://totp/…` URL an authenticator app reads from the QR code. */
export const totpUrl = (seed: string, accountName: string) => totpFor(seed, accountName).toString();

/** The 30-second step a code belongs to, when it is valid at `now`; null otherwise. */
export function matchTotpCode(seed: string, code: string, now: Date): number | null {
  if (!new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(code)) return null;
  const timestamp = now.getTime();
  const delta = totpFor(seed).validate({ token: code, timestamp, window: ACCEPTED_DRIFT_STEPS });
  return delta === null ? null : Math.floor(timestamp / 1000 / TOTP_PERIOD_SECONDS) + delta;
}
