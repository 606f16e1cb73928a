// Is there a newer agent for this platform? Reads the server's release manifest, checks its
// Ed25519 signature with the key this agent trusts (pinned at setup), and compares versions.
import { decodePublicKey, type ManifestEntry, ManifestError, verifyManifest } from "../../../protocol/release-manifest";
import type { ReleasesAnswer } from "../../../protocol/agent-protocol";
import { UpdateError } from "./errors.ts";

export type UpdateCheck = { kind: "up-to-date"; offered: string | null } | { kind: "available"; entry: ManifestEntry };

/**
 * Decides from the server's answer; `trustedKey` is the pinned key (undefined: none pinned yet,
 * the server's is taken). Throws UpdateError when the signature does not hold, the server's key is
 * not the pinned one, or this build cannot update itself.
 */
export function checkRelease(answer: ReleasesAnswer, current: { version: string; platform: string | null }, trustedKey: string | undefined): UpdateCheck {
  if (current.platform === null) throw new UpdateError("this agent runs from source, not as a built binary: update the checkout instead");
  const key = trustedKey ?? answer.publicKey;
  if (trustedKey !== undefined && answer.publicKey !== trustedKey) {
    throw new UpdateError(
      `the server now signs releases with another key (${answer.publicKey}) than the one this agent trusts (${trustedKey}): nothing was installed. If the server's administrator replaced it, put the new key in server.releaseKey of the config file (or run dbvault-agent setup --force)`,
    );
  }
  // A server without a signed release (nothing built, or not signed with its key) sends no signature.
  if (answer.signature === "")
    throw new UpdateError("the server offers no signed agent release: nothing was installed; its administrator builds and signs one with npm run build:agent");
  let entries: ManifestEntry[];
  try {
    decodePublicKey(key);
    entries = verifyManifest(answer.manifest, answer.signature, key);
  } catch (error) {
    if (error instanceof ManifestError) throw new UpdateError(`${error.message}: nothing was installed`);
    throw error;
  }
  const entry = entries.find((candidate) => candidate.platform === current.platform);
  if (!entry) {
    const offered = entries.map((candidate) => candidate.platform).join(", ") || "none";
    throw new UpdateError(
      `the server offers no agent for ${current.platform} (offered: ${offered}); its administrator builds it with npm run build:agent -- --all`,
    );
  }
  return Bun.semver.order(entry.version, current.version) > 0 ? { kind: "available", entry } : { kind: "up-to-date", offered: entry.version };
}
