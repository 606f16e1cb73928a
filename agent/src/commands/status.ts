// dbvault-agent status: what the server knows of this agent, as PBM's `pbm status` tells an
// operator: whether `run` is connected, each database's last and next backup and point-in-time
// lag, and the work queued for the agent. On the agent's own credentials: its databases only.
import type { AgentStatusAnswer } from "../../../protocol/operator";
import type { CommandContext } from "./context.ts";
import { describeBackup, formatSeconds, formatUtc, operatorClient } from "./operator-format.ts";
import { parseOptions } from "./parse-args.ts";
import { describeServerError } from "./server-link.ts";
import { COMMON_OPTIONS } from "./shared.ts";

/** Runs `status [--json]`; returns the exit code or throws what describeFailure reports. */
export async function runStatusCommand(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("status", args, { ...COMMON_OPTIONS, json: "boolean" });
  const { client, url } = await operatorClient(context, options.config);
  const status = await client.operatorStatus().catch((error) => {
    throw describeServerError(error, `status: asking ${url}`);
  });
  context.io.stdout.write(options.json === true ? `${JSON.stringify(status, null, 2)}\n` : describeStatus(status, url));
  return 0;
}

/** The status as text: one section for the agent, one a database, one for the queue. */
export function describeStatus(status: AgentStatusAnswer, url: string): string {
  const { agent } = status;
  const online = agent.status === "active";
  const seen = agent.lastSeen ? ` (last seen ${formatUtc(agent.lastSeen)})` : " (never connected)";
  const lines = [
    `agent:       ${agent.name} (${agent.id})${agent.version ? `, version ${agent.version}` : ""}`,
    `server:      ${url}, account ${status.organization}`,
    `connection:  ${online ? "online: dbvault-agent run is connected" : `offline: dbvault-agent run is not connected${seen}`}`,
    "",
  ];
  if (status.databases.length === 0) lines.push("databases:   none (add one with: dbvault-agent db add)");
  else lines.push("databases:");
  for (const database of status.databases) {
    lines.push(`  ${database.name}${database.isActive ? "" : " (disabled: beyond the plan's database limit)"}`);
    lines.push(`    last backup:    ${database.lastBackup ? describeBackup(database.lastBackup) : "none yet"}`);
    const every = database.everyHours === 1 ? "every hour" : `every ${database.everyHours} hours`;
    lines.push(`    next backup:    ${database.nextBackupAt ? `${formatUtc(database.nextBackupAt)} (${every})` : "not scheduled"}`);
    const pitr = database.pointInTime;
    const lag = pitr === null ? "off" : pitr.lagSeconds === null ? "on, no recent report of its lag" : `on, lag ${formatSeconds(pitr.lagSeconds)}`;
    lines.push(`    point in time:  ${lag}`);
  }
  lines.push("");
  if (status.queue.length === 0) lines.push("queued:      nothing");
  else lines.push("queued:");
  for (const job of status.queue) {
    const what = `${job.kind}${job.databaseName ? ` of ${job.databaseName}` : ""}`;
    const state =
      job.state === "running"
        ? `running${job.percent === null ? "" : ` (${Math.round(job.percent)}%)`}`
        : job.state === "leased"
          ? "taken, waiting its turn"
          : "waiting to be sent";
    lines.push(`  ${what}: ${state}, since ${formatUtc(job.since)}`);
  }
  return `${lines.join("\n")}\n`;
}
