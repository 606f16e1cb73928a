import { Button } from "../../../components/ui/button";
import { Badge } from "../../../components/ui/card";
import { Icon } from "../../../components/ui/icons";
import { cn } from "../../../lib/cn";
import type { AdminAgent } from "../api/admin-api";
import { agentHostOf } from "../utils/admin-users";

// Spec 4 agent colours: active green, inactive yellow, anything else red.
const statusTone = (status: string) =>
  status === "active" ? "bg-emerald-100 text-emerald-800" : status === "inactive" ? "bg-amber-100 text-amber-900" : "bg-red-100 text-red-800";

type Props = { agents: AdminAgent[] | null; busy: boolean; onDelete: (agent: AdminAgent) => void };

/** The selected user's agents: name, hostname or 'unknown', version, role (backup or restore), status, and a delete button. */
export function UserAgentsList({ agents, busy, onDelete }: Props) {
  return (
    <section aria-labelledby="admin-agents-heading" className="border-t border-slate-200 pt-5">
      <h3 id="admin-agents-heading" className="text-sm font-semibold text-slate-900">
        Agents
      </h3>
      {agents === null ? (
        <p className="mt-2 text-sm text-slate-500" role="status">
          Loading agents...
        </p>
      ) : agents.length === 0 ? (
        <p className="mt-2 text-sm text-slate-500">No agents registered.</p>
      ) : (
        <ul className="mt-2 divide-y divide-slate-100" aria-label="Agents">
          {agents.map((agent) => (
            <li key={agent._id} className="flex items-center justify-between gap-3 py-2" data-testid="admin-agent">
              <div className="min-w-0">
                <p className="truncate text-sm font-medium text-slate-900">{agent.name}</p>
                <p className="truncate text-xs text-slate-500">
                  {agentHostOf(agent)} · v{agent.version || "?"} · {agent.role} agent
                </p>
              </div>
              <div className="flex items-center gap-2">
                <Badge className={cn(statusTone(agent.status))}>{agent.status}</Badge>
                <Button
                  variant="ghost"
                  size="icon"
                  className="h-8 w-8 text-red-600 hover:bg-red-50"
                  aria-label={`Delete agent ${agent.name}`}
                  title="Delete agent"
                  disabled={busy}
                  onClick={() => onDelete(agent)}
                >
                  <Icon name="trash" className="h-4 w-4" />
                </Button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
