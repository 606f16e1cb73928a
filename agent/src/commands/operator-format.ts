// What the operator commands (status, list, backup now) share: reaching the server on the
// agent's own credentials, and writing times, backups and durations one way.
import { readServerSettings } from "../config.ts";
import type { OperatorBackup } from "../../../protocol/operator";
import { createServerClient, type ServerClient } from "../transport/server-client.ts";
import { formatBytes } from "../ui/format.ts";
import type { CommandContext } from "./context.ts";
import { loadSetUpConfig } from "./server-link.ts";

/** The server client of a set-up config, on the agent's own id and token; throws ConfigError when not set up. */
export async function operatorClient(context: CommandContext, explicit: string | boolean | undefined): Promise<{ client: ServerClient; url: string }> {
  const { config, path } = await loadSetUpConfig(context, explicit);
  const settings = readServerSettings(config, path);
  return { client: createServerClient(settings), url: settings.url };
}

/** "2026-12-07 21:30:05 UTC": the CLI's one way of writing a time, the same on every machine. */
export function formatUtc(iso: string): string {
  return `${iso.slice(0, 19).replace("T", " ")} UTC`;
}

/** 45 → "45 s", 150 → "2 min 30 s", 7200 → "2 h"; never throws. */
export function formatSeconds(seconds: number): string {
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole} s`;
  if (whole < 3600) return whole % 60 === 0 ? `${whole / 60} min` : `${Math.floor(whole / 60)} min ${whole % 60} s`;
  const minutes = Math.floor((whole % 3600) / 60);
  return minutes === 0 ? `${Math.floor(whole / 3600)} h` : `${Math.floor(whole / 3600)} h ${minutes} min`;
}

/** One backup on one line: status, when, size, whether it was read back, why it failed. */
export function describeBackup(backup: OperatorBackup): string {
  const parts = [backup.status, formatUtc(backup.createdAt), backup.type === "auto" ? "scheduled" : "manual"];
  if (backup.size !== null && backup.status === "completed") parts.push(formatBytes(backup.size));
  if (backup.status === "completed") parts.push(backup.verifiedAt ? "verified" : "not verified yet");
  const line = parts.join(", ");
  return backup.status === "failed" && backup.error ? `${line}: ${oneLine(backup.error)}` : line;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 120 ? `${flat.slice(0, 117)}...` : flat;
}
