import { randomBytes } from "node:crypto";
import { createSecretBox, type SecretBox } from "./secret-box";

// API keys are looked up by a keyed hash and stored encrypted (lib/secret-box), so the owner can
// still reveal their key in the web app.

export type ApiKeyVault = SecretBox & {
  /** A new random API key as shown to the user. */
  generate(): string;
};

export function createApiKeyVault(secret: string): ApiKeyVault {
  return { ...createSecretBox(secret, "api-key"), generate: () => `dbv_${randomBytes(24).toString("base64url")}` };
}
