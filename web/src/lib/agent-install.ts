// The agent this server hands out (GET /api/agent/releases) and the one-line install command, for
// every page that tells a user how to install it (dashboard checklist, settings, knowledge base).
import { useEffect, useState } from "react";
import { api } from "./api-client";

export const agentReleasesRequest = () => api.agent.releases.get();

export type AgentReleases = NonNullable<Awaited<ReturnType<typeof agentReleasesRequest>>["data"]>;

/** `curl -fsSL <server>/install.sh | sh`: what a user pastes on the machine next to MongoDB. */
export function formatInstallCommand(installScriptUrl: string): string {
  return `curl -fsSL ${installScriptUrl} | sh`;
}

/** "linux x64 (glibc)", "darwin arm64": a platform as a person reads it. */
export function describePlatform(platform: { os: string; arch: string; libc?: string }): string {
  const os = { linux: "Linux", darwin: "macOS", windows: "Windows" }[platform.os] ?? platform.os;
  return `${os} ${platform.arch}${platform.libc === "musl" ? " (musl, Alpine)" : ""}`;
}

/** What this server hands out (the install one-liner's URL, platforms); null until known or on failure. */
export function useAgentReleases(): AgentReleases | null {
  const [releases, setReleases] = useState<AgentReleases | null>(null);
  useEffect(() => {
    let active = true;
    agentReleasesRequest()
      .then(({ data }) => {
        if (active && data) setReleases(data);
      })
      .catch(() => console.error("failed to fetch the agent releases"));
    return () => {
      active = false;
    };
  }, []);
  return releases;
}
