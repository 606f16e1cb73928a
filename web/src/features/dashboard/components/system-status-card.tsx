import { Link } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { Badge, Card } from "../../../components/ui/card";
import { Button, buttonClasses } from "../../../components/ui/button";
import { cn } from "../../../lib/cn";
import type { SystemStatus } from "../api/dashboard-api";
import { describeAgentStatus } from "../utils/operation-status";
import { TONE_CLASSES } from "./status-badge";

type Props = { status: SystemStatus | null; checking: boolean; onCheck: () => void };

/** Settings → Security, scrolled to the agent's setup steps. */
export const AGENT_SETUP_PATH = "/settings?tab=security&setup=1";

/** System Status (spec 2): the user's agents, the backup service and its Check button. */
export function SystemStatusCard({ status, checking, onCheck }: Props) {
  const agents = status?.agents ?? [];
  const serviceUp = status?.backupService ?? false;
  return (
    <Card className="h-full min-w-0 p-5">
      <h2 className="text-lg font-semibold text-slate-900">System Status</h2>
      <Alert tone="warning" className="mt-3">
        Your agent holds the only copy of the encryption key. Keep it backed up: without it no backup can be restored.
      </Alert>
      <h3 className="mt-4 text-sm font-medium text-slate-600">Backup agents</h3>
      {agents.length === 0 ? (
        <div className="mt-2 rounded-lg border border-dashed border-slate-300 p-4 text-center">
          <p className="text-sm text-slate-600">No backup agents connected</p>
          <Link href={AGENT_SETUP_PATH} className={buttonClasses({ size: "sm", className: "mt-3" })}>
            Set Up Agent
          </Link>
        </div>
      ) : (
        <ul className="mt-2 divide-y divide-slate-100" aria-label="Backup agents">
          {agents.map((agent) => {
            const look = describeAgentStatus(agent.status);
            return (
              <li key={agent.id} className="flex items-center justify-between gap-3 py-2" data-testid="agent-row">
                <div className="min-w-0">
                  <p className="truncate font-medium text-slate-900">{agent.name}</p>
                  <p className="text-xs text-slate-500">
                    v{agent.version ?? "?"} · {agent.platform ?? "unknown platform"}
                    {/* Holds write-only agents' identity: runs their verifications, drills and restores, no backup. */}
                    {agent.role === "restore" ? " · restore agent" : ""}
                  </p>
                </div>
                <div className="flex items-center gap-2">
                  <Badge className={TONE_CLASSES[look.tone]}>{look.label}</Badge>
                  <Link
                    href={`/settings?agent=${encodeURIComponent(agent.id)}`}
                    className="rounded text-sm font-medium text-indigo-600 hover:underline"
                    aria-label={`Manage ${agent.name}`}
                  >
                    Manage
                  </Link>
                </div>
              </li>
            );
          })}
        </ul>
      )}
      <div className="mt-4 flex items-center justify-between gap-3 border-t border-slate-100 pt-4">
        <div>
          <p className="font-medium text-slate-900">Backup Service</p>
          <p className={cn("text-sm", serviceUp ? "text-emerald-700" : "text-red-700")} data-testid="backup-service-state">
            {status === null ? "Checking..." : serviceUp ? "Connected" : "Disconnected"}
          </p>
        </div>
        <Button variant="outline" size="sm" onClick={onCheck} disabled={checking}>
          {checking ? "Checking..." : "Check"}
        </Button>
      </div>
    </Card>
  );
}
