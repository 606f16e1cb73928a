import { Link } from "wouter";
import { Button } from "../../../components/ui/button";
import { Card } from "../../../components/ui/card";
import { CommandLine } from "../../../components/ui/command-line";
import { Icon } from "../../../components/ui/icons";
import { type AgentReleases, formatInstallCommand } from "../../../lib/agent-install";
import { cn } from "../../../lib/cn";
import type { OnboardingStep } from "../utils/onboarding";
import { AGENT_SETUP_PATH } from "./system-status-card";

type Props = { steps: OnboardingStep[]; releases: AgentReleases | null; origin: string; installMark: string | null; onHide: () => void };

/** The new account's path to a first backup and test restore, each step turning done as it happens. */
export function OnboardingChecklist({ steps, releases, origin, installMark, onHide }: Props) {
  // The address this page was reached at, as everywhere in the app (Settings → Security too). The
  // mark lets the step turn green once this command ran; quoted, since ? is a glob to the shell.
  const install = formatInstallCommand(installMark ? `'${origin}/install.sh?for=${installMark}'` : `${origin}/install.sh`);
  return (
    <Card className="h-full p-5" role="region" aria-labelledby="onboarding-heading" data-testid="onboarding-checklist">
      <div className="flex items-start justify-between gap-3">
        <h2 id="onboarding-heading" className="text-lg font-semibold text-slate-900">
          Your first backup in five minutes
        </h2>
        <Button variant="ghost" size="sm" onClick={onHide}>
          Hide
        </Button>
      </div>
      <p className="mt-1 text-sm text-slate-600">Each step turns green as it happens; this page follows along by itself.</p>
      <ol className="mt-4 space-y-4">
        {steps.map((step, index) => (
          <li key={step.id} className="flex gap-3" data-testid={`onboarding-step-${step.id}`} data-done={step.done ? "true" : "false"}>
            <span
              aria-hidden="true"
              className={cn(
                "mt-0.5 flex h-6 w-6 shrink-0 items-center justify-center rounded-full text-xs font-semibold",
                step.done ? "bg-emerald-600 text-white" : "border border-slate-300 text-slate-500",
              )}
            >
              {step.done ? <Icon name="check" className="h-4 w-4" /> : index + 1}
            </span>
            <div className="min-w-0 flex-1 text-sm">
              <p className={cn("font-medium", step.done ? "text-slate-500" : "text-slate-900")}>
                {step.title}
                <span className="sr-only">{step.done ? " (done)" : " (to do)"}</span>
              </p>
              {!step.done && step.id === "install" ? (
                <div className="mt-2 space-y-1">
                  {releases === null || releases.platforms.length > 0 ? (
                    <CommandLine command={install} />
                  ) : (
                    <p className="text-slate-600">This server has no agent build to hand out yet: ask its administrator to run npm run build:agent.</p>
                  )}
                  <p className="text-xs text-slate-500">
                    On the machine that can reach your MongoDB. Other platforms and checksums:{" "}
                    <Link href={AGENT_SETUP_PATH} className="text-indigo-600 underline">
                      Settings → Security
                    </Link>
                    .
                  </p>
                </div>
              ) : null}
              {!step.done && step.id === "setup" && step.again ? (
                <div className="mt-2 space-y-1">
                  <CommandLine command={`dbvault-agent setup --force --server ${origin}`} />
                  <p className="text-xs text-slate-500">
                    Your agent was removed from DBVault. On the machine that ran it, this registers it again and keeps its master key and databases; then start
                    it.
                  </p>
                </div>
              ) : null}
              {!step.done && step.id === "setup" && !step.again ? (
                <div className="mt-2 space-y-1">
                  <CommandLine command={`dbvault-agent setup --server ${origin}`} />
                  <p className="text-xs text-slate-500">
                    It asks for your API key (Settings → Security) and your databases, and prints your master key once: keep a copy.
                  </p>
                </div>
              ) : null}
              {!step.done && step.hint ? <p className="mt-1 text-slate-600">{step.hint}</p> : null}
            </div>
          </li>
        ))}
      </ol>
    </Card>
  );
}
