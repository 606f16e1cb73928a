// RFC 6238 time-based codes computed here with node:crypto's HMAC, independently of the server's
// library (otpauth), so tests check the server against the standard rather than against itself.
// The RFC's own test vectors check this file (server/src/modules/two-factor/two-factor.test.ts).
import { createHmac } from "node:crypto";

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function base32Decode(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text.replace(/=+$/, "").toUpperCase()) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The code an authenticator app shows at `timeMs` for a raw key (RFC 6238 with RFC 4226's truncation). */
export function totpCodeForKey(key: Buffer, timeMs: number, options: { digits?: number; period?: number; algorithm?: string } = {}) {
  const { digits = 6, period = 30, algorithm = "sha1" } = options;
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(timeMs / 1000 / period)));
  const mac = createHmac(algorithm, key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, "0");
}

/** The 6-digit code for a base32 seed as shown by the server's setup. */
export const totpCode = (base32Seed: string, timeMs: number) => totpCodeForKey(base32Decode(base32Seed), timeMs);
