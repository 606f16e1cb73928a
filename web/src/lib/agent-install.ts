// The agent this server hands out (GET /api/agent/releases) and the one-line install commands, for
// every page that tells a user how to install it (dashboard checklist, settings, knowledge base),
// and how an agent's version compares with what is offered.
import { useQuery } from "@tanstack/react-query";
import { AGENT_PLATFORMS, type AgentPlatform } from "@protocol/agent-platforms";
import { answerOrLog, api } from "./api-client";

export const agentReleasesRequest = () => api.agent.releases.get();

export type AgentReleases = NonNullable<Awaited<ReturnType<typeof agentReleasesRequest>>["data"]>;
export type OfferedAgent = AgentReleases["platforms"][number];

/** `curl -fsSL <server>/install.sh | sh`: what a user pastes on the Linux or macOS machine next to MongoDB. */
export function formatInstallCommand(installScriptUrl: string): string {
  return `curl -fsSL ${installScriptUrl} | sh`;
}

/** `irm <server>/install.ps1 | iex`: the same in Windows PowerShell. */
export function formatPowerShellInstallCommand(installScriptUrl: string): string {
  return `irm ${installScriptUrl} | iex`;
}

/** "Linux x64", "Linux arm64 (musl, Alpine)", "macOS arm64 (Apple silicon)": a platform as a person reads it. */
export function describePlatform(platform: { os: string; arch: string; libc?: string }): string {
  const os = { linux: "Linux", darwin: "macOS", windows: "Windows" }[platform.os] ?? platform.os;
  const detail = platform.libc === "musl" ? " (musl, Alpine)" : platform.os === "darwin" ? (platform.arch === "arm64" ? " (Apple silicon)" : " (Intel)") : "";
  return `${os} ${platform.arch}${detail}`;
}

/** Every platform the agent is built for, each with what this server offers for it (null: not built here). */
export function listPlatformOffers(releases: AgentReleases): { platform: AgentPlatform; offered: OfferedAgent | null }[] {
  return AGENT_PLATFORMS.map((platform) => ({ platform, offered: releases.platforms.find((entry) => entry.platform === platform.id) ?? null }));
}

export type VersionComparison = { state: "unknown" } | { state: "not-offered" } | { state: "current" | "outdated" | "newer"; offered: string };

/** An agent's version against the one offered for its platform; compared as semver (pre-releases before releases). */
export function compareAgentVersion(agent: { version: string | null; platform: string | null }, releases: AgentReleases | null): VersionComparison {
  if (!agent.version || !releases) return { state: "unknown" };
  const offered = releases.platforms.find((entry) => entry.platform === agent.platform)?.version;
  if (!offered) return { state: "not-offered" };
  const order = compareVersions(agent.version, offered);
  return { state: order === 0 ? "current" : order < 0 ? "outdated" : "newer", offered };
}

/** Semantic version order: -1, 0 or 1 (numbers compared as numbers; a pre-release sorts before its release). */
export function compareVersions(a: string, b: string): number {
  const split = (version: string) => {
    const [core = "", pre] = version.split("+")[0]!.split(/-(.*)/s);
    return { core: core.split(".").map(Number), pre };
  };
  const left = split(a);
  const right = split(b);
  for (let i = 0; i < 3; i++) {
    const difference = (left.core[i] ?? 0) - (right.core[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  if (left.pre === right.pre) return 0;
  if (left.pre === undefined) return 1;
  if (right.pre === undefined) return -1;
  return left.pre.localeCompare(right.pre, "en", { numeric: true }) < 0 ? -1 : 1;
}

/** What this server hands out (the install one-liners' URLs, platforms, signing key); null until known or on failure. */
export function useAgentReleases(): AgentReleases | null {
  const query = useQuery({
    queryKey: ["agent", "releases"],
    queryFn: () => answerOrLog("failed to fetch the agent releases", agentReleasesRequest()),
  });
  return query.data ?? null;
}
