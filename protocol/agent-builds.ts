// What scripts/build-agent.ts records about each agent binary it writes, in agent-release.json
// beside them: the platform, version, SHA-256 and size, fixed when the file is built. The build's
// own bookkeeping (is a build current?): what the server offers is only what the build signed
// (protocol/signed-release.ts); it never reads this file.
import { createHash } from "node:crypto";
import { createReadStream, existsSync, readFileSync } from "node:fs";
import { rename, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { SEMVER } from "./release-manifest";

export const AGENT_BUILD_RECORD = "agent-release.json";

export type AgentBuildEntry = { platform: string; version: string; sha256: string; size: number };
/** File name → what it was built as. */
export type AgentBuildRecord = Record<string, AgentBuildEntry>;

function isEntry(value: unknown): value is AgentBuildEntry {
  const entry = value as AgentBuildEntry;
  return (
    typeof entry === "object" &&
    entry !== null &&
    typeof entry.platform === "string" &&
    typeof entry.version === "string" &&
    SEMVER.test(entry.version) &&
    /^[0-9a-f]{64}$/.test(String(entry.sha256)) &&
    Number.isSafeInteger(entry.size)
  );
}

/** Parses a record's text, keeping only well-formed entries; never throws (bad JSON: empty). */
export function parseAgentBuildRecord(text: string): AgentBuildRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof parsed !== "object" || parsed === null) return {};
  return Object.fromEntries(Object.entries(parsed).filter(([, entry]) => isEntry(entry))) as AgentBuildRecord;
}

/** The record in `dir`, or an empty one when there is none; never throws. */
export function readAgentBuildRecord(dir: string): AgentBuildRecord {
  const path = join(dir, AGENT_BUILD_RECORD);
  if (!existsSync(path)) return {};
  try {
    return parseAgentBuildRecord(readFileSync(path, "utf8"));
  } catch {
    return {};
  }
}

/** SHA-256 of a file, streamed. */
export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Hashes a freshly built binary and adds it to the record beside it (written atomically); answers its entry. */
export async function recordAgentBuild(file: string, platform: string, version: string): Promise<AgentBuildEntry> {
  const dir = dirname(file);
  const entry: AgentBuildEntry = { platform, version, sha256: await sha256OfFile(file), size: (await stat(file)).size };
  const record = { ...readAgentBuildRecord(dir), [basename(file)]: entry };
  const temporary = join(dir, `.${AGENT_BUILD_RECORD}.${process.pid}.tmp`);
  await writeFile(temporary, `${JSON.stringify(record, null, 2)}\n`);
  await rename(temporary, join(dir, AGENT_BUILD_RECORD));
  return entry;
}
