import { randomInt } from "node:crypto";

export const RECOVERY_CODE_COUNT = 10;
// No 0/o, 1/l/i: codes are copied from paper.
const ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz";
const GROUP = 5;

/** A fresh set of recovery codes as shown to the user, e.g. `7kq2m-x9p4d` (about 49 bits each). */
export function newRecoveryCodes(): string[] {
  const group = () => Array.from({ length: GROUP }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => `${group()}-${group()}`);
}

/** A typed code as stored: case, spaces and dashes do not matter. */
export const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, "");

/** Whether a typed second factor looks like a recovery code rather than a 6-digit TOTP code. */
export const looksLikeRecoveryCode = (code: string) => normaliseRecoveryCode(code).length === GROUP * 2;
