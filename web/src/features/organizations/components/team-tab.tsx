import type { ReactNode } from "react";
import type { Organization } from "../../../lib/api/get-organizations";
import { permissionsOf, ROLE_LABELS } from "../../../lib/organization/permissions";
import { CreateTeamForm } from "./create-team-form";
import { InviteForm, PendingInvitations } from "./invitations";
import { MembersList } from "./members-list";
import { RenameTeamForm, TeamExits } from "./team-actions";

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="space-y-3">
      <h2 className="text-lg font-semibold text-slate-900">{title}</h2>
      {children}
    </section>
  );
}

/** Settings → Team: the current team's members, invitations and the ways out of it. */
export function TeamTab({ organization }: { organization: Organization }) {
  const can = permissionsOf(organization.role);
  return (
    <div className="space-y-10">
      <p className="text-sm text-slate-600">
        You are {ROLE_LABELS[organization.role]} of {organization.name}. Owners hold the plan and the team itself; admins run settings, agents, keys and
        members; operators run backups, restores and drills; viewers read.
      </p>
      <Section title="Members">
        <MembersList callerRole={organization.role} />
      </Section>
      {can.administer ? (
        <Section title="Invite a member">
          <InviteForm callerRole={organization.role} />
          <h3 className="pt-2 text-sm font-semibold text-slate-900">Pending invitations</h3>
          <PendingInvitations />
        </Section>
      ) : null}
      {can.administer ? (
        <Section title="Team name">
          <RenameTeamForm organization={organization} />
        </Section>
      ) : null}
      <Section title="Leave or hand over">
        <TeamExits organization={organization} />
      </Section>
      <Section title="Another team">
        <CreateTeamForm />
      </Section>
    </div>
  );
}
