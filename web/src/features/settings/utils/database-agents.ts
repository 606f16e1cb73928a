// How Settings → Databases says which agent runs a database, among the agents holding it.
import { describeAgentStatus } from "./agent-display";

type Holder = { id: string; name: string; status: string };
type Database = { agentId: string | null; agents: Holder[] };

export type DatabaseAgentsView =
  | { kind: "none"; text: string }
  | { kind: "one"; text: string }
  | { kind: "choice"; runnerId: string | null; options: { id: string; label: string }[] };

/** "Runs on vm-3f2a (Online)"; with several agents holding it, a choice; with none, what to do. */
export function describeDatabaseAgents(database: Database): DatabaseAgentsView {
  const label = (agent: Holder) => `${agent.name} (${describeAgentStatus(agent.status).label})`;
  if (database.agents.length === 0) {
    return { kind: "none", text: "No agent holds it: add it on a machine with dbvault-agent db add." };
  }
  if (database.agents.length === 1) return { kind: "one", text: `Runs on ${label(database.agents[0]!)}` };
  const runnerId = database.agents.some((agent) => agent.id === database.agentId) ? database.agentId : null;
  return { kind: "choice", runnerId, options: database.agents.map((agent) => ({ id: agent.id, label: label(agent) })) };
}
