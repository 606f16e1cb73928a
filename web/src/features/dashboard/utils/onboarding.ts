// The dashboard's onboarding checklist: which steps of a new account's path are done, from what
// the dashboard already knows (agents, backups, restores; a restore drill counts as a test restore).

export type OnboardingStep = { id: "install" | "setup" | "connected" | "backup" | "restore"; title: string; done: boolean; hint?: string };

type Facts = {
  agents: ReadonlyArray<{ status: string }>;
  backups: ReadonlyArray<{ status: string }>;
  /** Restores and drills alike: a completed drill is a test restore. */
  restores: ReadonlyArray<{ status: string; kind?: string }>;
};

/** The five steps; an agent that registered proves the first two (setup registers it). */
export function listOnboardingSteps({ agents, backups, restores }: Facts): OnboardingStep[] {
  const registered = agents.length > 0;
  const connected = agents.some((agent) => agent.status === "active");
  const backedUp = backups.some((backup) => backup.status === "completed");
  return [
    { id: "install", title: "Install the agent", done: registered },
    { id: "setup", title: "Run dbvault-agent setup", done: registered },
    { id: "connected", title: "Agent connected", done: connected, hint: registered ? "Start it: sudo dbvault-agent service install (or dbvault-agent run)." : undefined },
    { id: "backup", title: "First backup completed", done: backedUp, hint: connected ? "It starts by itself within a few seconds of the agent connecting." : undefined },
    { id: "restore", title: "First test restore", done: restores.some((restore) => restore.status === "completed"), hint: backedUp ? "Restore a backup into a copy, or run a restore drill (Settings → General), to see that it works." : undefined },
  ];
}

/** The checklist takes the chart's place until an agent is connected and a backup completed. */
export function isOnboarding(steps: readonly OnboardingStep[]): boolean {
  return steps.some((step) => step.id !== "restore" && !step.done);
}
