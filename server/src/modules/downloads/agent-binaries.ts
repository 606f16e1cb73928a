import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { AGENT_PLATFORMS, type AgentPlatform, HOST_PLATFORM_ID } from "@protocol/agent-platforms";
import { findEmbeddedFile } from "../../lib/embedded-files";

/** The build's own output name (`npm run build:agent`), a binary for the machine that built it. */
export const HOST_BUILD_FILE = "dbvault-agent";

/** One agent binary ready to be sent. */
export type AgentBinary = { platform: AgentPlatform; file: Blob; size: number; sha256: string };

/** The checkout's build output, where `npm run build:agent` writes; absent in a compiled server. */
export function defaultAgentDir(): string {
  return resolve(import.meta.dir, "../../../../dist");
}

type Source = { file: Blob; size: number; cacheKey: string };

/**
 * Finds and hashes the agent binaries the server hands out: `<agentDir>/dbvault-agent-<platform>`,
 * else for the host's platform the build's `<agentDir>/dbvault-agent`, else the copy embedded in
 * the single-file server. A binary is hashed once per version of the file (size and mtime), on
 * first use rather than at start-up, where 100 MB would delay the first answer.
 */
export function createAgentBinaries(options: { agentDir: string; embedded?: readonly Blob[] }) {
  const hashes = new Map<string, Promise<string>>();

  function locate(platform: AgentPlatform): Source | null {
    const candidates = [join(options.agentDir, platform.fileName)];
    if (platform.id === HOST_PLATFORM_ID) candidates.push(join(options.agentDir, HOST_BUILD_FILE));
    for (const path of candidates) {
      if (!existsSync(path)) continue;
      const info = statSync(path);
      if (info.isFile()) return { file: Bun.file(path), size: info.size, cacheKey: `${path}:${info.size}:${info.mtimeMs}` };
    }
    if (platform.id !== HOST_PLATFORM_ID) return null;
    const embedded = findEmbeddedFile(HOST_BUILD_FILE, options.embedded);
    return embedded ? { file: embedded, size: embedded.size, cacheKey: `embedded:${embedded.size}` } : null;
  }

  function sha256Of(source: Source): Promise<string> {
    let hash = hashes.get(source.cacheKey);
    if (!hash) {
      hash = hashStream(source.file.stream());
      hashes.set(source.cacheKey, hash);
      // A failed read must not be remembered: the next request tries again.
      hash.catch(() => hashes.delete(source.cacheKey));
    }
    return hash;
  }

  return {
    /** The binary offered for `platform`, or null when this server has none (not built). */
    async find(platform: AgentPlatform): Promise<AgentBinary | null> {
      const source = locate(platform);
      return source ? { platform, file: source.file, size: source.size, sha256: await sha256Of(source) } : null;
    },
    /** Every binary this server has, in AGENT_PLATFORMS order. */
    async available(): Promise<AgentBinary[]> {
      const found = await Promise.all(AGENT_PLATFORMS.map((platform) => this.find(platform)));
      return found.filter((binary): binary is AgentBinary => binary !== null);
    },
  };
}

export type AgentBinaries = ReturnType<typeof createAgentBinaries>;

async function hashStream(stream: ReadableStream<Uint8Array>): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of stream) hasher.update(chunk);
  return hasher.digest("hex");
}
