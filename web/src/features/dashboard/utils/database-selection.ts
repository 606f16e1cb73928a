// The dashboard's database selector: the account's real databases only (no placeholder name: a
// click on Trigger Backup must never meet "database not found"); a database that is not active
// (beyond the plan's limit) cannot be selected.

type DatabaseChoice = { name: string; isActive: boolean; agentId?: string | null };
type AgentState = { id: string; status: string };

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
  if (!agent || agent.status === "offline") return `The agent for ${database.name} is offline: start it with dbvault-agent run.`;
  return null;
}
