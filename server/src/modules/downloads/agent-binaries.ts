import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { AGENT_PLATFORMS, type AgentPlatform, HOST_PLATFORM_ID } from "@protocol/agent-platforms";
import { AGENT_BUILD_RECORD, type AgentBuildEntry, parseAgentBuildRecord, readAgentBuildRecord } from "@protocol/agent-builds";
import { PRODUCT_VERSION } from "@protocol/version";
import { findEmbeddedFile } from "../../lib/embedded-files";
import type { Logger } from "../../lib/logger";

/** The build's own output name (`npm run build:agent`), a binary for the machine that built it. */
export const HOST_BUILD_FILE = "dbvault-agent";

/** One agent binary ready to be sent: `sha256` and `version` are what its build recorded. */
export type AgentBinary = { platform: AgentPlatform; file: Blob; size: number; sha256: string; version: string };

/** The checkout's build output, where `npm run build:agent` writes; absent in a compiled server. */
export function defaultAgentDir(): string {
  return resolve(import.meta.dir, "../../../../dist");
}

type Source = { file: Blob; size: number; cacheKey: string; label: string; recorded: AgentBuildEntry | null };

/**
 * Finds the agent binaries the server hands out: `<agentDir>/dbvault-agent-<platform>`, else for
 * the host's platform the build's `<agentDir>/dbvault-agent`, else the copy embedded in the
 * single-file server. What is offered is what the build recorded (agent-release.json: version,
 * SHA-256, size); each file is checked against its record once per version of the file (size
 * and mtime), on first use rather than at start-up where 700 MB would delay the first answer. A
 * file that no longer matches is not offered (and logged); one after the check is refused by
 * whoever downloads it, since the signed checksum is the recorded one. A file without a record
 * (copied in by hand) is offered with its checksum as it is, as this server's version.
 */
export function createAgentBinaries(options: { agentDir: string; embedded?: readonly Blob[]; log?: Logger }) {
  const checks = new Map<string, Promise<{ sha256: string; version: string } | null>>();

  async function locate(platform: AgentPlatform): Promise<Source | null> {
    const names = [platform.fileName, ...(platform.id === HOST_PLATFORM_ID ? [HOST_BUILD_FILE] : [])];
    for (const name of names) {
      const path = join(options.agentDir, name);
      if (!existsSync(path)) continue;
      const info = statSync(path);
      if (!info.isFile()) continue;
      const recorded = readAgentBuildRecord(options.agentDir)[name] ?? null;
      return { file: Bun.file(path), size: info.size, cacheKey: `${path}:${info.size}:${info.mtimeMs}`, label: path, recorded: matching(recorded, platform) };
    }
    if (platform.id !== HOST_PLATFORM_ID) return null;
    const embedded = findEmbeddedFile(HOST_BUILD_FILE, options.embedded);
    if (!embedded) return null;
    const record = findEmbeddedFile(AGENT_BUILD_RECORD, options.embedded);
    const recorded = record ? (parseAgentBuildRecord(await record.text())[HOST_BUILD_FILE] ?? null) : null;
    return { file: embedded, size: embedded.size, cacheKey: `embedded:${embedded.size}`, label: "the agent embedded in this server", recorded: matching(recorded, platform) };
  }

  function check(source: Source): Promise<{ sha256: string; version: string } | null> {
    let result = checks.get(source.cacheKey);
    if (!result) {
      result = checkAgainstRecord(source, options.log);
      checks.set(source.cacheKey, result);
      // A failed read must not be remembered: the next request tries again.
      result.catch(() => checks.delete(source.cacheKey));
    }
    return result;
  }

  return {
    /** The binary offered for `platform`, or null when this server has none (not built, or failing its check). */
    async find(platform: AgentPlatform): Promise<AgentBinary | null> {
      const source = await locate(platform);
      const checked = source ? await check(source) : null;
      return source && checked ? { platform, file: source.file, size: source.size, ...checked } : null;
    },
    /** Every binary this server has, in AGENT_PLATFORMS order. */
    async available(): Promise<AgentBinary[]> {
      const found = await Promise.all(AGENT_PLATFORMS.map((platform) => this.find(platform)));
      return found.filter((binary): binary is AgentBinary => binary !== null);
    },
  };
}

export type AgentBinaries = ReturnType<typeof createAgentBinaries>;

/** A record entry counts only for the platform it was built for. */
const matching = (entry: AgentBuildEntry | null, platform: AgentPlatform) => (entry?.platform === platform.id ? entry : null);

async function checkAgainstRecord(source: Source, log: Logger | undefined): Promise<{ sha256: string; version: string } | null> {
  const sha256 = await hashStream(source.file.stream());
  const { recorded } = source;
  if (!recorded) {
    log?.warn("an agent binary has no build record: offered with its checksum as it is now", { file: source.label, sha256: shortDigest(sha256) });
    return { sha256, version: PRODUCT_VERSION };
  }
  if (recorded.sha256 !== sha256 || recorded.size !== source.size) {
    log?.error("an agent binary no longer matches what its build recorded: not offered (rebuild it with npm run build:agent)", {
      file: source.label,
      recordedSha256: shortDigest(recorded.sha256),
      sha256: shortDigest(sha256),
    });
    return null;
  }
  return { sha256: recorded.sha256, version: recorded.version };
}

/** The start of a checksum, enough to tell builds apart in a log (full 64-hex digests stay out of logs). */
export const shortDigest = (sha256: string) => `${sha256.slice(0, 16)}…`;

async function hashStream(stream: ReadableStream<Uint8Array>): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of stream) hasher.update(chunk);
  return hasher.digest("hex");
}
