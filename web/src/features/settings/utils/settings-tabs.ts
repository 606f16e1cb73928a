// The /settings tabs and the tab/agent query parameters (spec 2).

export const SETTINGS_TABS = [
  { id: "general", label: "General" },
  { id: "agents", label: "Agents" },
  { id: "databases", label: "Databases" },
  { id: "security", label: "Security" },
  { id: "notifications", label: "Notifications" },
] as const;

/** In a team (not the personal organization): its members and invitations. */
export const TEAM_TAB = { id: "team", label: "Team" } as const;

/** Shown to owners of a team organization only (the one-person settings keep the spec's five tabs). */
export const SSO_TAB = { id: "sso", label: "SSO" } as const;

export type SettingsTab = (typeof SETTINGS_TABS)[number]["id"] | typeof TEAM_TAB.id | typeof SSO_TAB.id;

const isSettingsTab = (value: string | null): value is SettingsTab =>
  value === TEAM_TAB.id || value === SSO_TAB.id || SETTINGS_TABS.some((tab) => tab.id === value);

/**
 * The tab to open for a query string: an `agent` naming a known agent opens Agents with it
 * selected; otherwise the `tab` parameter if it names a tab; otherwise General.
 */
export function readSettingsLocation(search: string, knownAgentIds: readonly string[]): { tab: SettingsTab; agentId: string | null } {
  const params = new URLSearchParams(search);
  const agentId = params.get("agent");
  if (agentId && knownAgentIds.includes(agentId)) return { tab: "agents", agentId };
  const tab = params.get("tab");
  return { tab: isSettingsTab(tab) ? tab : "general", agentId: null };
}

/** The address after the user picks a tab: the tab is kept, the agent parameter dropped. */
export function settingsPathFor(tab: SettingsTab): string {
  return tab === "general" ? "/settings" : `/settings?tab=${tab}`;
}
