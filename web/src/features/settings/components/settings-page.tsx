import { type ReactNode, useEffect, useRef, useState } from "react";
import { Link, useLocation, useSearch } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { Icon } from "../../../components/ui/icons";
import { LoadingScreen } from "../../../components/ui/spinner";
import { Tabs } from "../../../components/ui/tabs";
import { useSession } from "../../../lib/auth/use-session";
import { useSettingsData } from "../hooks/use-settings-data";
import { readSettingsLocation, SETTINGS_TABS, SSO_TAB, type SettingsTab, settingsPathFor, TEAM_TAB } from "../utils/settings-tabs";
import { AgentsTab } from "./agents-tab";
import { DatabasesTab } from "./databases-tab";
import { GeneralTab } from "./general-tab";
import { NotificationsTab } from "./notifications-tab";
import { SecurityTab } from "./security-tab";
import { SsoTab } from "./sso-tab";
import { useSsoConnection } from "../api/sso-api";

type SettingsPageProps = {
  /** The Team tab's panel, in a team; null in the personal organization (the spec's five tabs). */
  team?: ReactNode;
  /** Whether the current role may change settings (admins and owners); below, only Team shows. */
  administer?: boolean;
};

/** Settings (spec 2, /settings): five tabs (and Team in a team), opened by the tab and agent query parameters. */
export function SettingsPage({ team = null, administer = true }: SettingsPageProps) {
  return administer ? <AllSettings team={team} /> : <TeamSettingsOnly team={team} />;
}

const header = (
  <>
    <Link href="/dashboard" className="keyboard-focus-ring inline-flex items-center gap-1 rounded text-sm font-medium text-indigo-600 hover:text-indigo-500">
      <Icon name="arrowLeft" className="h-4 w-4" /> Back to Dashboard
    </Link>
    <h1 className="mt-4 text-3xl font-bold tracking-tight text-slate-900">Settings</h1>
  </>
);

/** A member below admin: the team's page only; settings, agents and keys are the admins'. */
function TeamSettingsOnly({ team }: { team: ReactNode }) {
  return (
    <div className="mx-auto max-w-7xl px-4 py-10 sm:px-6 lg:px-8">
      {header}
      <p className="mt-1 text-slate-600">Schedule, agents, databases and keys are managed by the team's admins and owners.</p>
      <div className="mt-8">
        {team ? (
          <Tabs items={[TEAM_TAB]} value={TEAM_TAB.id} onValueChange={() => undefined} label="Settings sections">
            {team}
          </Tabs>
        ) : null}
      </div>
    </div>
  );
}

function AllSettings({ team }: { team: ReactNode }) {
  const search = useSearch();
  const [, setLocation] = useLocation();
  const { user } = useSession();
  const data = useSettingsData();
  // The SSO tab is available only to an owner of a team organization.
  const sso = useSsoConnection();
  const ssoConnection = sso.data?.available ? sso.data : null;
  const [tab, setTab] = useState<SettingsTab>(() => readSettingsLocation(search, []).tab);
  // ?tab=team or ?tab=sso where that tab is not offered (or before the answer) opens General.
  const shownTab = (tab === TEAM_TAB.id && !team) || (tab === SSO_TAB.id && !ssoConnection) ? "general" : tab;
  const tabs = [...SETTINGS_TABS, ...(team ? [TEAM_TAB] : []), ...(ssoConnection ? [SSO_TAB] : [])];
  const [selectedAgentId, setSelectedAgentId] = useState<string | null>(null);
  // /settings?tab=security&setup=1 (the dashboard's 'Set Up Agent') lands on the setup steps.
  const [focusSetup, setFocusSetup] = useState(() => new URLSearchParams(search).has("setup"));
  const setupHeadingRef = useRef<HTMLHeadingElement>(null);
  const agentsKnown = data.agents !== null;

  // Once the agents are known, an agent parameter naming one of them opens it on the Agents tab.
  useEffect(() => {
    if (!data.agents) return;
    const wanted = readSettingsLocation(
      search,
      data.agents.map((agent) => agent.id),
    );
    if (wanted.agentId) {
      setTab("agents");
      setSelectedAgentId(wanted.agentId);
    }
    // Only on arrival (once the agents are known): later address changes come from this page.
  }, [agentsKnown]);

  useEffect(() => {
    if (tab !== "security" || !focusSetup || !setupHeadingRef.current) return;
    setFocusSetup(false);
    setupHeadingRef.current?.scrollIntoView({ behavior: "smooth", block: "start" });
    setupHeadingRef.current?.focus({ preventScroll: true });
  }, [tab, focusSetup, Boolean(data.settings && data.plan && data.databases && data.agents)]);

  const changeTab = (next: SettingsTab) => {
    setTab(next);
    // The agent parameter has done its job once the user moves on: drop it from the address.
    setLocation(settingsPathFor(next), { replace: true });
  };

  const openSetup = () => {
    setFocusSetup(true);
    changeTab("security");
  };

  const ready = data.settings && data.plan && data.databases && data.agents;

  return (
    <div className="mx-auto max-w-7xl px-4 py-10 sm:px-6 lg:px-8">
      {header}
      <p className="mt-1 text-slate-600">Schedule, agents, databases, security and notifications.</p>

      <div className="mt-8">
        {data.loadError ? (
          <Alert>Failed to load settings. Please reload the page.</Alert>
        ) : !ready ? (
          <LoadingScreen label="Loading settings..." />
        ) : (
          <Tabs items={tabs} value={shownTab} onValueChange={changeTab} label="Settings sections" phonePicker>
            {shownTab === "general" ? <GeneralTab settings={data.settings!} plan={data.plan!} databases={data.databases!} /> : null}
            {shownTab === "agents" ? (
              <AgentsTab
                agents={data.agents!}
                selectedId={selectedAgentId}
                onSelect={setSelectedAgentId}
                onRemove={data.removeAgent}
                onUpdateRequested={data.watchUpdates}
                onSetupNew={openSetup}
              />
            ) : null}
            {shownTab === "databases" ? <DatabasesTab databases={data.databases!} plan={data.plan!} /> : null}
            {shownTab === "security" ? <SecurityTab setupHeadingRef={setupHeadingRef} /> : null}
            {shownTab === "notifications" ? <NotificationsTab settings={data.settings!} accountEmail={user?.email ?? ""} /> : null}
            {shownTab === "sso" && ssoConnection ? <SsoTab connection={ssoConnection} /> : null}
            {shownTab === TEAM_TAB.id ? team : null}
          </Tabs>
        )}
      </div>
    </div>
  );
}
