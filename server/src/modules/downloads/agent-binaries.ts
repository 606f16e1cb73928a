import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { AGENT_PLATFORMS, type AgentPlatform, HOST_PLATFORM_ID } from "@protocol/agent-platforms";
import type { ManifestEntry } from "@protocol/release-manifest";
import { parseSignedRelease, readSignedRelease, SIGNED_RELEASE_FILE, type SignedRelease, verifiedEntries } from "@protocol/signed-release";
import { findEmbeddedFile } from "../../lib/embedded-files";
import type { Logger } from "../../lib/logger";

/** The build's own output name (`npm run build:agent`), a binary for the machine that built it. */
export const HOST_BUILD_FILE = "dbvault-agent";

/** One agent binary ready to be sent: `sha256`, `size` and `version` are its signed manifest line's. */
export type AgentBinary = { platform: AgentPlatform; file: Blob; size: number; sha256: string; version: string };

/** The signed release the server hands out as it is, with the lines whose signature held. */
export type VerifiedRelease = { signed: SignedRelease; entries: ManifestEntry[] };

/** The checkout's build output, where `npm run build:agent` writes; absent in a compiled server. */
export function defaultAgentDir(): string {
  return resolve(import.meta.dir, "../../../../dist");
}

type Candidate = { file: Blob; size: number; identity: string; label: string };

/**
 * The agent binaries the server hands out: only those a build signed. The release manifest is
 * `<agentDir>/agent-release.signed.json` (else the one compiled into the single-file server), read
 * on every request and used only when it carries the trusted key's signature; the server never
 * signs one itself. For each platform it lists, the file offered is the first of
 * `<agentDir>/dbvault-agent-<platform>`, the host build `<agentDir>/dbvault-agent` and the
 * embedded agent whose SHA-256 and size are the signed ones. That hash is remembered per file
 * version (device, inode, size, modification and change time: a write or a `touch` changes the
 * change time) so that a listing does not read 700 MB; what is sent is checked again as it is sent
 * (downloads/verified-stream.ts).
 */
export function createAgentBinaries(options: { agentDir: string; trustedKey: () => string; embedded?: readonly Blob[]; log?: Logger }) {
  const hashes = new Map<string, Promise<string>>();
  const logged = new Set<string>();
  // Each listing would repeat the same line: a problem is logged once until it changes.
  const logOnce = (level: "warn" | "error", message: string, fields: Record<string, unknown>) => {
    const key = `${message}:${JSON.stringify(fields)}`;
    if (logged.has(key)) return;
    logged.add(key);
    options.log?.[level](message, fields);
  };

  async function readRelease(): Promise<{ signed: SignedRelease; label: string } | null> {
    const onDisk = readSignedRelease(options.agentDir);
    if (onDisk) return { signed: onDisk, label: join(options.agentDir, SIGNED_RELEASE_FILE) };
    const embedded = findEmbeddedFile(SIGNED_RELEASE_FILE, options.embedded);
    const signed = embedded ? parseSignedRelease(await embedded.text()) : null;
    return signed ? { signed, label: "the release compiled into this server" } : null;
  }

  function candidates(platform: AgentPlatform): Candidate[] {
    const names = [platform.fileName, ...(platform.id === HOST_PLATFORM_ID ? [HOST_BUILD_FILE] : [])];
    const found: Candidate[] = [];
    for (const name of names) {
      const path = join(options.agentDir, name);
      if (!existsSync(path)) continue;
      const info = statSync(path);
      if (info.isFile())
        found.push({
          file: Bun.file(path),
          size: info.size,
          identity: `${path}:${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`,
          label: path,
        });
    }
    const embedded = platform.id === HOST_PLATFORM_ID ? findEmbeddedFile(HOST_BUILD_FILE, options.embedded) : null;
    if (embedded) found.push({ file: embedded, size: embedded.size, identity: `embedded:${embedded.size}`, label: "the agent embedded in this server" });
    return found;
  }

  function hashOf(candidate: Candidate): Promise<string> {
    let hash = hashes.get(candidate.identity);
    if (!hash) {
      hash = hashStream(candidate.file.stream());
      hashes.set(candidate.identity, hash);
      // A failed read must not be remembered: the next request tries again.
      hash.catch(() => hashes.delete(candidate.identity));
    }
    return hash;
  }

  async function locate(platform: AgentPlatform, line: ManifestEntry): Promise<AgentBinary | null> {
    for (const candidate of candidates(platform)) {
      if (candidate.size === line.size && (await hashOf(candidate)) === line.sha256) {
        return { platform, file: candidate.file, size: line.size, sha256: line.sha256, version: line.version };
      }
    }
    logOnce("error", "no agent binary matches its line of the signed release manifest: not offered (rebuild it with npm run build:agent)", {
      platform: platform.id,
      signedSha256: shortDigest(line.sha256),
      files: candidates(platform).map((candidate) => candidate.label),
    });
    return null;
  }

  return {
    /** The signed release when its signature holds with the trusted key; null (and logged once) otherwise. */
    async release(): Promise<VerifiedRelease | null> {
      const found = await readRelease();
      if (!found) {
        logOnce("warn", "no signed agent release: no agent is offered (build one with npm run build:agent)", { agentDir: options.agentDir });
        return null;
      }
      const entries = verifiedEntries(found.signed, options.trustedKey());
      if (!entries) {
        logOnce("error", "the agent release manifest is not signed with this server's release key: no agent is offered", {
          file: found.label,
          trustedKey: options.trustedKey(),
          hint: "build and sign with the key whose public half this server trusts (RELEASE_SIGNING_KEY for npm run build:agent, RELEASE_PUBLIC_KEY here)",
        });
        return null;
      }
      return { signed: found.signed, entries };
    },
    /** The binary offered for `platform` under `release`, or null when none matches its signed line. */
    async find(platform: AgentPlatform, release: VerifiedRelease | null): Promise<AgentBinary | null> {
      const line = release?.entries.find((entry) => entry.platform === platform.id);
      return line ? locate(platform, line) : null;
    },
    /** Every binary offered under `release`, in AGENT_PLATFORMS order. */
    async available(release: VerifiedRelease | null): Promise<AgentBinary[]> {
      const found = await Promise.all(AGENT_PLATFORMS.map((platform) => this.find(platform, release)));
      return found.filter((binary): binary is AgentBinary => binary !== null);
    },
  };
}

export type AgentBinaries = ReturnType<typeof createAgentBinaries>;

/** The start of a checksum, enough to tell builds apart in a log (full 64-hex digests stay out of logs). */
export const shortDigest = (sha256: string) => `${sha256.slice(0, 16)}…`;

async function hashStream(stream: ReadableStream<Uint8Array>): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of stream) hasher.update(chunk);
  return hasher.digest("hex");
}
