// How agents and the service endpoint are shown on the Agents and Security tabs (spec 2 and 4).
import { formatInstallCommand } from "../../../lib/agent-install";

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

/** The 'Setup New Agent' steps for this server: install with its one-liner, set up, run as a service. */
export function listAgentSetupSteps(origin: string): { title: string; command: string }[] {
  const serverUrl = origin.replace(/\/+$/, "");
  return [
    {
      title: "Install the agent on the server that can reach your MongoDB (the script checks the download's SHA-256)",
      command: formatInstallCommand(`${serverUrl}/install.sh`),
    },
    {
      title: "Run the setup: it asks for your API key (above) and each database's name and connection string, and prints your master key once",
      command: `dbvault-agent setup --server ${serverUrl}`,
    },
    { title: "Keep it running as a service; it stays connected and runs your scheduled backups", command: "sudo dbvault-agent service install" },
  ];
}
