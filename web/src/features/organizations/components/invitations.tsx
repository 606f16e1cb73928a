import { type FormEvent, useState } from "react";
import { Button } from "../../../components/ui/button";
import { Field } from "../../../components/ui/field";
import { Select } from "../../../components/ui/select";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { formatDate } from "../../../lib/format-date";
import { type MemberRole, ROLE_LABELS } from "../../../lib/organization/permissions";
import { useInvitations, useInvite, useRevokeInvitation } from "../api/team-api";
import { assignableRoles } from "../utils/member-rules";
import { useOwnerConfirmation } from "./owner-confirmation";

/** Invite by e-mail with a role: the link is mailed, valid 7 days, used once. */
export function InviteForm({ callerRole }: { callerRole: MemberRole }) {
  const roles = assignableRoles(callerRole);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<MemberRole>("viewer");
  const [error, setError] = useState<string | null>(null);
  const { mutate: invite, mutateAsync: inviteConfirmed, isPending } = useInvite();
  const { confirmOwnerChange, ownerDialog } = useOwnerConfirmation();

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) return setError("Please enter a valid email address");
    setError(null);
    if (role === "owner") {
      const invited = email.trim();
      confirmOwnerChange({
        title: "Invite an owner",
        message: `${invited} gets the team, its plan and its owners once they accept, as you have them.`,
        confirmLabel: "Send invitation",
        run: async (credentials) => {
          const invitation = await inviteConfirmed({ email: invited, role, credentials });
          setEmail("");
          return { message: `Invitation sent to ${invitation.email}` };
        },
        fallback: "The invitation could not be sent. Please try again.",
      });
      return;
    }
    invite(
      { email: email.trim(), role },
      {
        onSuccess: (invitation) => {
          setEmail("");
          toast({ title: `Invitation sent to ${invitation.email}`, description: "The link in it works once, for 7 days.", variant: "success" });
        },
        onError: (failure) => setError(readErrorMessage(failure) ?? "The invitation could not be sent. Please try again."),
      },
    );
  };

  return (
    <>
      <form onSubmit={onSubmit} noValidate className="flex flex-col gap-3 sm:flex-row sm:items-end">
        <Field
          label="Email address to invite"
          type="email"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          error={error}
          className="sm:w-80"
        />
        <div>
          <label htmlFor="invite-role" className="block text-sm font-medium text-slate-700">
            Role
          </label>
          <Select id="invite-role" value={role} onChange={(event) => setRole(event.target.value as MemberRole)} className="mt-1">
            {roles.map((option) => (
              <option key={option} value={option}>
                {ROLE_LABELS[option]}
              </option>
            ))}
          </Select>
        </div>
        <Button type="submit" disabled={isPending}>
          {isPending ? "Sending..." : "Send invitation"}
        </Button>
      </form>
      {ownerDialog}
    </>
  );
}

/** The pending invitations, each revocable. */
export function PendingInvitations() {
  const { data: invitations, error } = useInvitations(true);
  const { mutate: revoke } = useRevokeInvitation();
  if (error) return <p className="text-sm text-red-600">{readErrorMessage(error) ?? "Failed to load the invitations."}</p>;
  if (!invitations) return null;
  if (invitations.length === 0) return <p className="text-sm text-slate-500">No pending invitations.</p>;
  return (
    <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200" aria-label="Pending invitations">
      {invitations.map((invitation) => (
        <li key={invitation.id} className="flex flex-wrap items-center justify-between gap-3 px-4 py-3">
          <div className="min-w-0">
            <p className="truncate text-sm font-medium text-slate-900">{invitation.email}</p>
            <p className="text-xs text-slate-500">
              {ROLE_LABELS[invitation.role]} · invited by {invitation.invitedBy ?? "a former member"} · expires {formatDate(invitation.expiresAt)}
            </p>
          </div>
          <Button
            variant="ghost"
            size="sm"
            aria-label={`Revoke the invitation to ${invitation.email}`}
            onClick={() =>
              revoke(invitation.id, {
                onSuccess: (answer) => toast({ title: answer.message, variant: "success" }),
                onError: (failure) => toast({ title: readErrorMessage(failure) ?? "The invitation could not be revoked.", variant: "destructive" }),
              })
            }
          >
            Revoke
          </Button>
        </li>
      ))}
    </ul>
  );
}
