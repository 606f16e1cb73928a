// The dashboard's onboarding checklist: which steps of a new account's path are done, from what
// the dashboard already knows (agents, backups, restores; a restore drill counts as a test restore).

export type OnboardingStep = {
  id: "install" | "setup" | "connected" | "backup" | "restore";
  title: string;
  done: boolean;
  hint?: string;
  /** The setup step after the account's agent was removed: that machine needs setup --force. */
  again?: boolean;
};

type Facts = {
  agents: ReadonlyArray<{ status: string }>;
  /** The account's databases (each came from an agent's setup); null while loading. */
  databases?: ReadonlyArray<unknown> | null;
  backups: ReadonlyArray<{ status: string }>;
  /** Restores and drills alike: a completed drill is a test restore. */
  restores: ReadonlyArray<{ status: string; kind?: string }>;
  /** How far the checklist's own install command got (GET /api/settings/system-status). */
  install?: { scriptFetchedAt: string | null; downloadedAt: string | null } | null;
};

/**
 * The five steps; an agent that registered proves the first two (setup registers it), and the
 * install is done as soon as the checklist's command fetched the script and downloaded the agent.
 */
export function listOnboardingSteps({ agents, databases, backups, restores, install }: Facts): OnboardingStep[] {
  const registered = agents.length > 0;
  // Databases but no agent: the agent that brought them was removed; its machine has the agent
  // and a configuration, where plain setup answers "already connected".
  const removed = !registered && (databases?.length ?? 0) > 0;
  const installed = registered || removed || Boolean(install?.scriptFetchedAt && install.downloadedAt);
  const connected = agents.some((agent) => agent.status === "active");
  const backedUp = backups.some((backup) => backup.status === "completed");
  return [
    { id: "install", title: "Install the agent", done: installed },
    removed
      ? { id: "setup", title: "Connect the agent again: dbvault-agent setup --force", done: false, again: true }
      : { id: "setup", title: "Run dbvault-agent setup", done: registered },
    {
      id: "connected",
      title: "Agent connected",
      done: connected,
      hint: registered ? "Start it: sudo dbvault-agent service install (or dbvault-agent run)." : undefined,
    },
    {
      id: "backup",
      title: "First backup completed",
      done: backedUp,
      hint: connected ? "It starts by itself within a few seconds of the agent connecting." : undefined,
    },
    {
      id: "restore",
      title: "First test restore",
      done: restores.some((restore) => restore.status === "completed"),
      hint: backedUp ? "Restore a backup into a copy, or run a restore drill (Settings → General), to see that it works." : undefined,
    },
  ];
}

/** The checklist takes the chart's place until every step is done (the test restore too) or the user hides it. */
export function isOnboarding(steps: readonly OnboardingStep[], hidden = false): boolean {
  return !hidden && steps.some((step) => !step.done);
}
