import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";

// Secrets the server must read back later (API keys, two-factor seeds) are stored as AES-256-GCM
// ciphertext, and values it must only recognise (API keys, recovery codes) as keyed hashes, under
// keys derived from the server's API_KEY_SECRET: a leaked database alone yields neither the
// secrets nor a way to test guesses offline. Each purpose gets its own pair of keys.

export type SecretBox = {
  /** Keyed HMAC-SHA256 (hex): the look-up value of a secret that is never read back. */
  hash(value: string): string;
  /** AES-256-GCM ciphertext (base64url of iv | tag | body). */
  seal(value: string): string;
  /** The value back from its ciphertext; throws if the ciphertext was altered or the secret changed. */
  open(sealed: string): string;
};

const derive = (secret: string, label: string) => Buffer.from(hkdfSync("sha256", Buffer.from(secret), Buffer.alloc(0), Buffer.from(label), 32));

/** A box for one purpose, e.g. "api-key" or "two-factor". */
export function createSecretBox(secret: string, purpose: string): SecretBox {
  const encryptionKey = derive(secret, `dbvault/${purpose}/encryption`);
  const lookupKey = derive(secret, `dbvault/${purpose}/lookup`);
  return {
    hash: (value) => createHmac("sha256", lookupKey).update(value).digest("hex"),
    seal(value) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", encryptionKey, iv);
      const body = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
    },
    open(sealed) {
      const raw = Buffer.from(sealed, "base64url");
      const decipher = createDecipheriv("aes-256-gcm", encryptionKey, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
    },
  };
}
