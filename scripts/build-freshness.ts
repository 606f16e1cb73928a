// When a build output is older than what it is built from, for the scripts that rebuild only
// what is stale (npm start, npm run build:server): a fresh clone builds once, later starts skip it.
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { AGENT_PLATFORMS } from "../protocol/agent-platforms";
import { readAgentBuildRecord } from "../protocol/agent-builds";
import { PRODUCT_VERSION } from "../protocol/version";
import { readSignedRelease, verifiedEntries } from "../protocol/signed-release";
import { resolveReleaseSigningKey } from "./lib/release-signing-key";

export const repoRoot = resolve(import.meta.dir, "..");

/** What the web build reads (scripts/build-web.ts) and what it writes last. */
export const WEB_BUILD = {
  output: "web/dist/index.html",
  sources: ["web/src", "web/public", "web/index.html", "web/uno.config.ts", "scripts/build-web.ts", "protocol"],
};

/** What the agent build reads (scripts/build-agent.ts: agent/src/cli.ts and its imports) and writes. */
export const AGENT_BUILD = {
  output: "dist/dbvault-agent",
  sources: ["agent/src", "protocol", "package.json", "scripts/build-agent.ts"],
};

/** The fresh embedded-database cluster the single-file server unpacks on its first start. */
export const PGLITE_TEMPLATE_BUILD = {
  output: "dist/pglite-template.tar.gz",
  sources: ["node_modules/@electric-sql/pglite/package.json", "db/client.ts", "scripts/build-pglite-template.ts"],
};

/** Newest modification time of a file or of every file below a directory; 0 when absent. */
function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** True when `build.output` exists and none of its sources changed after it was written. */
export function isBuildCurrent(build: { output: string; sources: string[] }): boolean {
  const output = resolve(repoRoot, build.output);
  if (!existsSync(output)) return false;
  const built = statSync(output).mtimeMs;
  return build.sources.every((source) => newestMtime(join(repoRoot, source)) <= built);
}

/**
 * True when the agent binary `output` was built from the current sources, as the current version,
 * is in its directory's build record, and its platform is in the directory's release manifest as
 * signed by the key builds sign with now (protocol/signed-release.ts): a build signed with another
 * key (another DATA_DIR or RELEASE_SIGNING_KEY) is built and signed again.
 */
export function isAgentBuildCurrent(output: string): boolean {
  const path = resolve(repoRoot, output);
  const entry = readAgentBuildRecord(dirname(path))[basename(path)];
  if (entry?.version !== PRODUCT_VERSION || !isBuildCurrent({ output: path, sources: AGENT_BUILD.sources })) return false;
  const signed = verifiedEntries(readSignedRelease(dirname(path)), resolveReleaseSigningKey().publicKey);
  return signed?.some((line) => line.platform === entry.platform && line.version === PRODUCT_VERSION) ?? false;
}

/**
 * Other platforms' agent builds (`build-agent.ts --all`) present in dist/ but older than the
 * agent's sources: the server would hand out an old agent, so whoever rebuilds the host's
 * rebuilds these too.
 */
export function staleAgentPlatformBuilds(): string[] {
  return AGENT_PLATFORMS.filter((platform) => {
    const output = join("dist", platform.fileName);
    return existsSync(join(repoRoot, output)) && !isAgentBuildCurrent(output);
  }).map((platform) => platform.id);
}

/** Runs one of the build scripts with this Bun; its output goes to ours. Throws when it fails. */
export function runBuildScript(script: string, args: string[] = []): void {
  const run = Bun.spawnSync([process.execPath, join(repoRoot, "scripts", script), ...args], { cwd: repoRoot, stdout: "inherit", stderr: "inherit" });
  if (run.exitCode !== 0) throw new Error(`${script} failed (exit ${run.exitCode})`);
}
