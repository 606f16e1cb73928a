import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo, useRef, useState } from "react";
import { databasesQueryKey, type UserDatabase, useDatabases } from "../../../lib/api/get-databases";
import { type SystemStatus, systemStatusQuery, systemStatusQueryKey, type UserAgent } from "../../../lib/api/get-system-status";
import { type UserPlan, useUserPlan } from "../../../lib/api/get-user-plan";
import { useSettings } from "../api/get-settings";
import type { UserSettings } from "../api/settings-api";
import { describeLastUpdate } from "../utils/agent-display";

/** How often the agents' status is refreshed while the page is open (spec 9: 30 s). */
const AGENTS_REFRESH_MS = 30_000;
/** While an update runs, the agents are refreshed this often, for at most UPDATE_WATCH_MS. */
const UPDATE_REFRESH_MS = 2_000;
const UPDATE_WATCH_MS = 5 * 60_000;

export type SettingsData = {
  settings: UserSettings | null;
  plan: UserPlan | null;
  databases: UserDatabase[] | null;
  agents: UserAgent[] | null;
  loadError: boolean;
  /** Takes an agent the server has removed (DELETE /api/agents/{id}) off this page's list; its databases may have moved. */
  removeAgent: (agentId: string) => void;
  /** Refreshes the agents every 2 s until no update is under way (Check for Updates was sent). */
  watchUpdates: () => void;
};

/** Everything the settings tabs show: settings, the plan's limits, databases and agents. */
export function useSettingsData(): SettingsData {
  const queryClient = useQueryClient();
  // While an update runs the agents are read every 2 s: each of its steps shows within seconds,
  // not at the next 30 s refresh. `since`: when Check for Updates was sent.
  const [watch, setWatch] = useState<{ since: number; until: number } | null>(null);
  const settings = useSettings();
  const plan = useUserPlan();
  const databases = useDatabases();
  const agentsQuery = useQuery({
    ...systemStatusQuery,
    refetchInterval: (query) => {
      if (!watch || Date.now() > watch.until) return AGENTS_REFRESH_MS;
      const list = query.state.data?.agents ?? [];
      const underWay = list.some((agent) => agent.lastUpdate && !describeLastUpdate(agent.lastUpdate)?.finished);
      return underWay || query.state.dataUpdatedAt <= watch.since ? UPDATE_REFRESH_MS : AGENTS_REFRESH_MS;
    },
  });
  // Removed agents stay off the list when it is refreshed.
  const removed = useRef(new Set<string>());
  const agents = useMemo(() => agentsQuery.data?.agents.filter((agent) => !removed.current.has(agent.id)) ?? null, [agentsQuery.data]);

  const failed = (query: { isError: boolean; data: unknown }) => query.isError && !query.data;
  const loadError = failed(settings) || failed(plan) || failed(databases) || failed(agentsQuery);

  const updateAgents = useCallback(
    (change: (list: UserAgent[]) => UserAgent[]) =>
      queryClient.setQueryData<SystemStatus>(systemStatusQueryKey, (current) => (current ? { ...current, agents: change(current.agents) } : current)),
    [queryClient],
  );
  const watchUpdates = useCallback(() => setWatch({ since: Date.now(), until: Date.now() + UPDATE_WATCH_MS }), []);
  const removeAgent = useCallback(
    (agentId: string) => {
      removed.current.add(agentId);
      updateAgents((list) => list.filter((agent) => agent.id !== agentId));
      // Its databases passed to another agent holding them (or to none): the Databases tab says which.
      void queryClient.invalidateQueries({ queryKey: databasesQueryKey });
    },
    [queryClient, updateAgents],
  );
  return {
    settings: settings.data ?? null,
    plan: plan.data ?? null,
    databases: databases.data ?? null,
    agents,
    loadError,
    removeAgent,
    watchUpdates,
  };
}
