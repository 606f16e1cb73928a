import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";

// API keys are looked up by a keyed hash and stored encrypted, both under keys derived from the
// server's API_KEY_SECRET: a leaked database alone yields neither usable keys nor a way to test
// guesses offline, yet the owner can still reveal their key in the web app.

export type ApiKeyVault = {
  /** A new random API key as shown to the user. */
  generate(): string;
  /** The look-up hash stored in users.api_key_hash. */
  hash(apiKey: string): string;
  /** The ciphertext stored in users.api_key_ciphertext. */
  seal(apiKey: string): string;
  /** The API key back from its ciphertext; throws if the ciphertext was altered or the secret changed. */
  open(sealed: string): string;
};

const derive = (secret: string, label: string) =>
  Buffer.from(hkdfSync("sha256", Buffer.from(secret), Buffer.alloc(0), Buffer.from(label), 32));

export function createApiKeyVault(secret: string): ApiKeyVault {
  const encryptionKey = derive(secret, "dbvault/api-key/encryption");
  const lookupKey = derive(secret, "dbvault/api-key/lookup");
  return {
    generate: () => `dbv_${randomBytes(24).toString("base64url")}`,
    hash: (apiKey) => createHmac("sha256", lookupKey).update(apiKey).digest("hex"),
    seal(apiKey) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", encryptionKey, iv);
      const body = Buffer.concat([cipher.update(apiKey, "utf8"), cipher.final()]);
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
