// How agents and the service endpoint are shown on the Agents and Security tabs (spec 2 and 4).
import { formatInstallCommand, formatPowerShellInstallCommand } from "../../../lib/agent-install";

export type AgentStatusView = { label: "Online" | "Inactive" | "Offline"; tone: "green" | "yellow" | "red" };

/** active = Online (green), inactive = Inactive (yellow), anything else = Offline (red). */
export function describeAgentStatus(status: string | null | undefined): AgentStatusView {
  if (status === "active") return { label: "Online", tone: "green" };
  if (status === "inactive") return { label: "Inactive", tone: "yellow" };
  return { label: "Offline", tone: "red" };
}

/** The service endpoint agents talk to: the site's origin plus /api. */
export function formatServiceEndpoint(origin: string): string {
  return `${origin.replace(/\/+$/, "")}/api`;
}

/** An API key hidden but for its last 4 characters, so users can tell keys apart. */
export function maskApiKey(apiKey: string | null | undefined): string {
  if (!apiKey) return "";
  const visible = apiKey.length > 8 ? apiKey.slice(-4) : "";
  return `${"•".repeat(Math.max(8, apiKey.length - visible.length))}${visible}`;
}

export type SetupStep = { title: string; commands: { label?: string; command: string }[]; note?: string };

/** The operating systems this server has agent builds for; null while not known (both are shown). */
export type OfferedSystems = { unix: boolean; windows: boolean } | null;

/** Which install one-liners this server can honour, from the platforms it offers (GET /api/agent/releases). */
export function listOfferedSystems(releases: { platforms: ReadonlyArray<{ os: string }> } | null): OfferedSystems {
  if (!releases) return null;
  return { unix: releases.platforms.some((entry) => entry.os !== "windows"), windows: releases.platforms.some((entry) => entry.os === "windows") };
}

const ADD_BUILDS = "its administrator adds the missing builds with npm run build:agent -- --all";

/**
 * The 'Setup New Agent' steps for this server: install with its one-liner, set up, run as a
 * service. Only the one-liners for systems the server has builds for; the others are named.
 */
export function listAgentSetupSteps(origin: string, offered: OfferedSystems = null): SetupStep[] {
  const serverUrl = origin.replace(/\/+$/, "");
  const unix = offered?.unix ?? true;
  const windows = offered?.windows ?? true;
  const missing = !unix && !windows ? "any system" : !unix ? "Linux or macOS" : !windows ? "Windows" : null;
  return [
    {
      title: "Install the agent on the server that can reach your MongoDB (the installer checks the download against this server's signed checksums)",
      commands: [
        ...(unix ? [{ label: "Linux or macOS", command: formatInstallCommand(`${serverUrl}/install.sh`) }] : []),
        ...(windows ? [{ label: "Windows (PowerShell)", command: formatPowerShellInstallCommand(`${serverUrl}/install.ps1`) }] : []),
      ],
      ...(missing ? { note: `This server has no agent build for ${missing}: ${ADD_BUILDS}.` } : {}),
    },
    {
      title: "Run the setup: it asks for your API key (above) and each database's name and connection string, and prints your master key once",
      commands: [{ command: `dbvault-agent setup --server ${serverUrl}` }],
    },
    {
      title: "Keep it running as a service; it stays connected and runs your scheduled backups",
      commands: [
        { label: "Linux (systemd) or macOS (launchd)", command: "sudo dbvault-agent service install" },
        { label: "Windows (a scheduled task; in an administrator's PowerShell)", command: "dbvault-agent service install" },
      ],
    },
  ];
}

type LastUpdate = { status: string; message: string; version: string | null; at: string | null };
export type UpdateView = { label: string; tone: "green" | "yellow" | "red" | "slate"; finished: boolean };

const UPDATE_VIEWS: Record<string, UpdateView> = {
  requested: { label: "Update check sent", tone: "slate", finished: false },
  waiting: { label: "Waiting for the running backup or restore", tone: "yellow", finished: false },
  checking: { label: "Checking for a new version", tone: "yellow", finished: false },
  "up-to-date": { label: "Up to date", tone: "green", finished: true },
  installing: { label: "Installing", tone: "yellow", finished: false },
  restarting: { label: "Restarting into the new version", tone: "yellow", finished: false },
  updated: { label: "Updated", tone: "green", finished: true },
  failed: { label: "Update failed", tone: "red", finished: true },
};

/** How the last Check for Updates is shown; null when there was none. */
export function describeLastUpdate(update: LastUpdate | null | undefined): UpdateView | null {
  if (!update) return null;
  return UPDATE_VIEWS[update.status] ?? { label: update.status, tone: "slate", finished: true };
}
