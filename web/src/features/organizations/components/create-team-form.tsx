import { type FormEvent, useState } from "react";
import { useLocation } from "wouter";
import { Button } from "../../../components/ui/button";
import { Field } from "../../../components/ui/field";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { chooseOrganization } from "../../../lib/organization/chosen-organization";
import { useCreateTeam } from "../api/team-api";

/** "Create a team": the new team becomes the current organization and its Team page opens. */
export function CreateTeamForm() {
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [, setLocation] = useLocation();
  const { mutate: createTeam, isPending } = useCreateTeam();

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) return setError("Give the team a name, e.g. your company's.");
    setError(null);
    createTeam(name.trim(), {
      onSuccess: (team) => {
        chooseOrganization(team.id);
        setLocation("/settings?tab=team");
        toast({ title: `Team ${team.name} created`, description: "Invite your colleagues with the roles they need.", variant: "success" });
      },
      onError: (failure) => setError(readErrorMessage(failure) ?? "The team could not be created. Please try again."),
    });
  };

  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-3 sm:flex-row sm:items-end">
      <Field label="Team name" value={name} onChange={(event) => setName(event.target.value)} error={error} maxLength={100} className="sm:w-80" />
      <Button type="submit" variant="outline" disabled={isPending}>
        {isPending ? "Creating..." : "Create a team"}
      </Button>
    </form>
  );
}

/** The small "Teams" section of Profile → Account, where one person starts a team. */
export function TeamsSection() {
  return (
    <section aria-labelledby="teams-heading" className="mt-10 max-w-xl border-t border-slate-200 pt-6">
      <h2 id="teams-heading" className="text-base font-semibold text-slate-900">
        Teams
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Work with colleagues: a team has its own databases, agents and backups, and you invite members with roles. Switch between your organizations in the
        navigation bar.
      </p>
      <div className="mt-4">
        <CreateTeamForm />
      </div>
    </section>
  );
}
