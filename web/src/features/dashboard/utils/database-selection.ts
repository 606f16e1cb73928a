// The dashboard's database selector: the account's real databases only (no placeholder name: a
// click on Trigger Backup must never meet "database not found"); a database that is not active
// (beyond the plan's limit) cannot be selected.

import { formatDateTime } from "../../../lib/format-date";

type DatabaseChoice = { name: string; isActive: boolean; agentId?: string | null };
type AgentState = { id: string; status: string };

/** What connects a machine whose agent was removed (plain setup answers "already connected"). */
export const RECONNECT_REMOVED_AGENT = "dbvault-agent setup --force";

/** The selection to keep or move to once the user's databases are known; "" while none is active. */
export function chooseDatabase(current: string, databases: ReadonlyArray<DatabaseChoice>): string {
  if (databases.some((db) => db.name === current && db.isActive)) return current;
  return databases.find((db) => db.isActive)?.name ?? "";
}

/** Why Trigger Backup cannot run for `selected` now, or null when it can; shown beside the button. */
export function explainTriggerBlocked(
  selected: string,
  databases: ReadonlyArray<DatabaseChoice> | null,
  agents: ReadonlyArray<AgentState> | null,
): string | null {
  if (databases === null) return null; // still loading: the button waits quietly
  if (databases.length === 0) return "Add a database with dbvault-agent setup first.";
  const database = databases.find((db) => db.name === selected);
  if (!database) return "Every database is disabled: enable one in Settings → Databases.";
  if (agents === null) return null;
  const agent = agents.find((candidate) => candidate.id === database.agentId);
  // A database comes from an agent's setup, so one without its agent lost it to a removal; there
  // `run` exits "this agent was removed", and only setup --force connects that machine again.
  if (!agent) return `The agent for ${database.name} was removed: connect its machine again with ${RECONNECT_REMOVED_AGENT}.`;
  if (agent.status === "offline") return `The agent for ${database.name} is offline: start it with dbvault-agent run.`;
  return null;
}

type ManualBackup = { databaseName: string; type: string; status: string; createdAt: string };
type PlanLimit = { name: string; frequencyLimit: number };

/**
 * When the plan's one manual backup per period of `selected` is used, as the server counts it
 * (its newest manual backup that did not fail): the time the next one is allowed, else null.
 */
export function nextManualBackupAt(selected: string, backups: ReadonlyArray<ManualBackup> | null, plan: PlanLimit | null, now: number): Date | null {
  if (!backups || !plan) return null;
  let newest = Number.NEGATIVE_INFINITY;
  for (const backup of backups) {
    if (backup.databaseName !== selected || backup.type !== "manual" || backup.status === "failed") continue;
    newest = Math.max(newest, new Date(backup.createdAt).getTime());
  }
  const next = newest + plan.frequencyLimit * 3_600_000;
  return Number.isFinite(next) && next > now ? new Date(next) : null;
}

/** Why Trigger Backup waits for the plan's manual limit, the words of the server's 429 and when it opens. */
export function explainManualLimit(plan: PlanLimit, next: Date): string {
  const every = plan.frequencyLimit === 1 ? "hour" : `${plan.frequencyLimit} hours`;
  return `Your ${plan.name} plan allows one manual backup every ${every}: the next from ${formatDateTime(next)}.`;
}
