import { useState } from "react";
import { Badge, Card } from "../../../components/ui/card";
import { Button } from "../../../components/ui/button";
import { askConfirmation } from "../../../components/ui/confirm-dialog";
import { Icon } from "../../../components/ui/icons";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { formatDateTime } from "../../../lib/format-date";
import { cn } from "../../../lib/cn";
import type { AgentAction, UserAgent } from "../api/settings-api";
import { useManageAgent, useRemoveAgent } from "../api/settings-mutations";
import { compareAgentVersion, type AgentReleases, useAgentReleases } from "../../../lib/agent-install";
import { describeAgentStatus, describeLastUpdate } from "../utils/agent-display";
import { AgentRenameForm } from "./agent-rename-form";
import { AgentSetupApproval } from "./agent-setup-approval";

const FAILURE_TITLES: Record<AgentAction, string> = {
  restart: "Failed to send restart command",
  update: "Failed to send update check command",
  reset: "Failed to send reset command",
};

type AgentsTabProps = {
  agents: UserAgent[];
  selectedId: string | null;
  onSelect: (agentId: string) => void;
  onRemove: (agentId: string) => void;
  onSetupNew: () => void;
  /** Check for Updates was sent: follow the agents closely until it ends. */
  onUpdateRequested?: () => void;
};

// Full class strings here (a .tsx file) so the UnoCSS extractor finds every one.
const STATUS_CLASSES = { green: "bg-emerald-100 text-emerald-800", yellow: "bg-amber-100 text-amber-800", red: "bg-red-100 text-red-800" };

function StatusBadge({ status }: { status: string | null }) {
  const view = describeAgentStatus(status);
  return <Badge className={STATUS_CLASSES[view.tone]}>{view.label}</Badge>;
}

/** The agent's version against what this server offers for its platform. */
function VersionNote({ agent, releases }: { agent: UserAgent; releases: AgentReleases | null }) {
  const comparison = compareAgentVersion(agent, releases);
  if (comparison.state === "unknown") return null;
  if (comparison.state === "not-offered")
    return <span className="ml-2 text-xs font-normal text-slate-500">(this server has no build for {agent.platform})</span>;
  if (comparison.state === "current") return <span className="ml-2 text-xs font-normal text-emerald-700">(the server's version)</span>;
  if (comparison.state === "newer") return <span className="ml-2 text-xs font-normal text-slate-500">(newer than the server's {comparison.offered})</span>;
  return <span className="ml-2 text-xs font-normal text-amber-700">(the server offers {comparison.offered}: use Check for Updates)</span>;
}

const UPDATE_TONES = { green: "text-emerald-700", yellow: "text-amber-700", red: "text-red-700", slate: "text-slate-700" };

/** The last Check for Updates: where it got, what the agent said, and when. */
function LastUpdate({ update }: { update: UserAgent["lastUpdate"] }) {
  const view = describeLastUpdate(update);
  if (!update || !view) return null;
  return (
    <div className="sm:col-span-2" data-testid="agent-last-update">
      <dt className="text-slate-500">Last update</dt>
      <dd className={cn("font-medium", UPDATE_TONES[view.tone])}>
        {view.label}
        {update.at ? <span className="ml-2 text-xs font-normal text-slate-500">{formatDateTime(update.at)}</span> : null}
      </dd>
      {update.message ? <dd className="mt-1 break-words text-xs text-slate-600">{update.message}</dd> : null}
    </div>
  );
}

/** The agent list with a detail panel: status, last seen, platform, version, commands, maintenance. */
export function AgentsTab({ agents, selectedId, onSelect, onRemove, onSetupNew, onUpdateRequested }: AgentsTabProps) {
  const manage = useManageAgent();
  const removal = useRemoveAgent();
  const busy = manage.isPending || removal.isPending;
  const [renaming, setRenaming] = useState<string | null>(null);
  const [approving, setApproving] = useState<string | null>(null);
  const releases = useAgentReleases();
  const selected = agents.find((agent) => agent.id === selectedId) ?? agents[0] ?? null;

  if (agents.length === 0) {
    return (
      <div className="rounded-xl border border-dashed border-slate-300 p-10 text-center">
        <Icon name="terminal" className="mx-auto h-8 w-8 text-slate-400" />
        <p className="mt-3 font-medium text-slate-900">No agents connected yet</p>
        <p className="mt-1 text-sm text-slate-600">An agent on your own server dumps, encrypts and uploads your backups.</p>
        <Button className="mt-5" onClick={onSetupNew}>
          Setup New Agent
        </Button>
      </div>
    );
  }

  const send = (agent: UserAgent, action: AgentAction) =>
    manage.mutate(
      { agentId: agent.id, action },
      {
        onSuccess: (data) => {
          toast({ title: data.message, variant: "success" });
          if (action === "update") onUpdateRequested?.();
        },
        onError: (error) => toast({ title: FAILURE_TITLES[action], description: readErrorMessage(error) ?? undefined, variant: "destructive" }),
      },
    );

  const reset = async (agent: UserAgent) => {
    const confirmed = await askConfirmation({
      title: "Reset connection",
      message: `New connection credentials will be generated for "${agent.name}" and its current ones stop working. If the agent does not reconnect, run dbvault-agent setup --force on its server.`,
      confirmLabel: "Reset Connection",
    });
    if (confirmed) send(agent, "reset");
  };

  const remove = async (agent: UserAgent) => {
    const confirmed = await askConfirmation({
      title: "Remove agent",
      message: `Remove "${agent.name}" from your account? Its connection is revoked and it stops; to connect that machine again, run dbvault-agent setup --force on it. Databases another of your agents also holds move to that agent. This will not delete any existing backups.`,
      confirmLabel: "Remove Agent",
    });
    if (!confirmed) return;
    removal.mutate(agent.id, {
      onSuccess: (data) => {
        toast({ title: data.message, variant: "success" });
        onRemove(agent.id);
      },
      onError: (error) => toast({ title: "Failed to remove agent", description: readErrorMessage(error) ?? undefined, variant: "destructive" }),
    });
  };

  return (
    <div className="grid gap-6 lg:grid-cols-[18rem_1fr]">
      <div>
        <ul aria-label="Agents" className="space-y-2">
          {agents.map((agent) => (
            <li key={agent.id}>
              <button
                type="button"
                aria-current={selected?.id === agent.id ? "true" : undefined}
                onClick={() => onSelect(agent.id)}
                className={cn(
                  "keyboard-focus-ring flex w-full items-center justify-between gap-3 rounded-lg border px-4 py-3 text-left",
                  selected?.id === agent.id ? "border-indigo-500 bg-indigo-50" : "border-slate-200 bg-white hover:bg-slate-50",
                )}
              >
                <span className="min-w-0">
                  <span className="block truncate font-medium text-slate-900">{agent.name}</span>
                  <span className="block truncate text-xs text-slate-600">{agent.hostname ?? "unknown host"}</span>
                </span>
                <StatusBadge status={agent.status} />
              </button>
            </li>
          ))}
        </ul>
        <Button variant="outline" className="mt-4 w-full" onClick={onSetupNew}>
          <Icon name="plus" className="h-4 w-4" /> Setup New Agent
        </Button>
      </div>

      {selected ? (
        <Card className="p-6" aria-label={`Agent ${selected.name}`} role="region">
          {renaming === selected.id ? (
            <AgentRenameForm agent={selected} onCancel={() => setRenaming(null)} onRenamed={() => setRenaming(null)} />
          ) : (
            <div className="flex flex-wrap items-center justify-between gap-3">
              <h2 className="text-lg font-semibold text-slate-900">{selected.name}</h2>
              <div className="flex items-center gap-2">
                <Button variant="outline" size="sm" onClick={() => setRenaming(selected.id)}>
                  Rename
                </Button>
                <StatusBadge status={selected.status} />
              </div>
            </div>
          )}
          <dl className="mt-4 grid gap-4 text-sm sm:grid-cols-2">
            <div>
              <dt className="text-slate-500">Status</dt>
              <dd className="font-medium text-slate-900">{describeAgentStatus(selected.status).label}</dd>
            </div>
            <div>
              <dt className="text-slate-500">Last seen</dt>
              <dd className="font-medium text-slate-900">{selected.lastSeen ? formatDateTime(selected.lastSeen) : "Never"}</dd>
            </div>
            <div>
              <dt className="text-slate-500">Platform</dt>
              <dd className="font-medium text-slate-900">{selected.platform ?? "unknown"}</dd>
            </div>
            <div>
              <dt className="text-slate-500">Version</dt>
              <dd className="font-medium text-slate-900" data-testid="agent-version">
                {selected.version ?? "unknown"}
                <VersionNote agent={selected} releases={releases} />
              </dd>
            </div>
            <LastUpdate update={selected.lastUpdate} />
          </dl>

          <h3 className="mt-6 text-sm font-semibold text-slate-900">Commands</h3>
          <div className="mt-2 flex flex-wrap gap-2">
            <Button variant="outline" disabled={busy} onClick={() => send(selected, "restart")}>
              Restart Agent
            </Button>
            <Button variant="outline" disabled={busy} onClick={() => send(selected, "update")}>
              Check for Updates
            </Button>
          </div>

          <h3 className="mt-6 text-sm font-semibold text-slate-900">Maintenance</h3>
          <div className="mt-2 flex flex-wrap gap-2">
            <Button variant="destructive" disabled={busy} onClick={() => remove(selected)}>
              Remove Agent
            </Button>
            <Button variant="outline" disabled={busy} onClick={() => reset(selected)}>
              Reset Connection
            </Button>
            <Button variant="outline" disabled={busy || approving === selected.id} onClick={() => setApproving(selected.id)}>
              Approve a set-up code
            </Button>
          </div>
          {approving === selected.id ? <AgentSetupApproval key={selected.id} agent={selected} onClose={() => setApproving(null)} /> : null}
        </Card>
      ) : null}
    </div>
  );
}
