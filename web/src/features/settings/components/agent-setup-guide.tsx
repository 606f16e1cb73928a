import { forwardRef } from "react";
import { Card } from "../../../components/ui/card";
import { CommandLine } from "../../../components/ui/command-line";
import type { AgentReleases } from "../../../lib/agent-install";
import { listAgentSetupSteps, listOfferedSystems } from "../utils/agent-display";

type Props = { origin: string; releases: AgentReleases | null };

/** How to install dbvault-agent and run its setup against this server (opened by 'Setup New Agent'). */
export const AgentSetupGuide = forwardRef<HTMLHeadingElement, Props>(function AgentSetupGuide({ origin, releases }, headingRef) {
  const steps = listAgentSetupSteps(origin, listOfferedSystems(releases));
  return (
    <Card className="p-6" role="region" aria-labelledby="agent-setup-heading">
      <h2 id="agent-setup-heading" ref={headingRef} tabIndex={-1} className="text-lg font-semibold text-slate-900 outline-none">
        Set up a new agent
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        The agent runs on your own server. Connection strings and the encryption key are entered there and never leave it.
      </p>
      {releases && !releases.publicUrlSet ? (
        <p className="mt-3 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="public-url-notice">
          These commands use the address you opened DBVault at ({origin}). E-mailed links (password resets, alerts) still say {releases.mailedLinksUrl}: its
          administrator sets PUBLIC_URL to the address users reach, then restarts DBVault.
        </p>
      ) : null}
      <ol className="mt-4 space-y-4">
        {steps.map((step, index) => (
          <li key={step.title} className="text-sm">
            <p className="text-slate-800">
              <span className="font-semibold">{index + 1}.</span> {step.title}
            </p>
            {step.commands.map(({ label, command }) => (
              <div key={command} className="mt-2">
                {label ? <p className="mb-1 text-xs font-medium text-slate-500">{label}</p> : null}
                <CommandLine command={command} />
              </div>
            ))}
            {step.note ? (
              <p className="mt-2 text-xs text-slate-500" data-testid="setup-step-note">
                {step.note}
              </p>
            ) : null}
          </li>
        ))}
      </ol>
      <p className="mt-4 text-xs text-slate-500">
        Setup prints your backup encryption key once: keep a copy somewhere safe, since without it no backup can be restored.
        <code className="ml-1 font-mono">dbvault-agent key export</code> prints it again on that server.
      </p>
    </Card>
  );
});
