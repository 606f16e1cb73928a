import { useCallback, useEffect, useRef, useState } from "react";
import {
  getSettingsRequest,
  listDatabasesRequest,
  systemStatusRequest,
  type UserAgent,
  type UserDatabase,
  type UserPlan,
  type UserSettings,
  userPlanRequest,
} from "../api/settings-api";
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
  setSettings: (settings: UserSettings) => void;
  setDatabases: (databases: UserDatabase[]) => void;
  /** Takes an agent the server has removed (DELETE /api/agents/{id}) off this page's list; its databases may have moved. */
  removeAgent: (agentId: string) => void;
  /** Shows an agent's new name (PATCH /api/agents/{id}). */
  replaceAgent: (agent: UserAgent) => void;
  /** Refreshes the agents every 2 s until no update is under way (Check for Updates was sent). */
  watchUpdates: () => void;
};

async function readAgents(): Promise<UserAgent[]> {
  const { data, error } = await systemStatusRequest();
  if (error || !data) throw new Error("system status failed");
  return data.agents;
}

/** Everything the settings tabs show: settings, the plan's limits, databases and agents. */
export function useSettingsData(): SettingsData {
  const [settings, setSettings] = useState<UserSettings | null>(null);
  const [plan, setPlan] = useState<UserPlan | null>(null);
  const [databases, setDatabases] = useState<UserDatabase[] | null>(null);
  const [agents, setAgentList] = useState<UserAgent[] | null>(null);
  const [loadError, setLoadError] = useState(false);
  // Removed agents stay off the list when it is refreshed.
  const removed = useRef(new Set<string>());
  const showAgents = useCallback((list: UserAgent[]) => setAgentList(list.filter((agent) => !removed.current.has(agent.id))), []);

  useEffect(() => {
    let active = true;
    Promise.all([getSettingsRequest(), userPlanRequest(), listDatabasesRequest(), readAgents()])
      .then(([s, p, d, a]) => {
        if (!active) return;
        if (!s.data || !p.data || !d.data) throw new Error("load failed");
        setSettings(s.data);
        setPlan(p.data);
        setDatabases(d.data);
        showAgents(a);
      })
      .catch(() => active && setLoadError(true));
    const timer = setInterval(() => {
      readAgents()
        .then((list) => active && showAgents(list))
        .catch(() => {}); // a missed refresh keeps the last list; the next one retries
    }, AGENTS_REFRESH_MS);
    return () => {
      active = false;
      clearInterval(timer);
    };
  }, [showAgents]);

  // An update is followed closely: each of its steps shows within seconds, not at the next 30 s refresh.
  const watch = useRef<ReturnType<typeof setInterval> | null>(null);
  useEffect(() => () => void (watch.current && clearInterval(watch.current)), []);
  const watchUpdates = useCallback(() => {
    if (watch.current) clearInterval(watch.current);
    const until = Date.now() + UPDATE_WATCH_MS;
    const timer = setInterval(() => {
      readAgents()
        .then((list) => {
          showAgents(list);
          const underWay = list.some((agent) => agent.lastUpdate && !describeLastUpdate(agent.lastUpdate)?.finished);
          if ((!underWay || Date.now() > until) && watch.current === timer) {
            clearInterval(timer);
            watch.current = null;
          }
        })
        .catch(() => {});
    }, UPDATE_REFRESH_MS);
    watch.current = timer;
  }, [showAgents]);

  const removeAgent = useCallback((agentId: string) => {
    removed.current.add(agentId);
    setAgentList((list) => list?.filter((agent) => agent.id !== agentId) ?? null);
    // Its databases passed to another agent holding them (or to none): the Databases tab says which.
    listDatabasesRequest()
      .then(({ data }) => data && setDatabases(data))
      .catch(() => {});
  }, []);
  const replaceAgent = useCallback(
    (changed: UserAgent) => setAgentList((list) => list?.map((agent) => (agent.id === changed.id ? changed : agent)) ?? null),
    [],
  );
  return { settings, plan, databases, agents, loadError, setSettings, setDatabases, removeAgent, replaceAgent, watchUpdates };
}
