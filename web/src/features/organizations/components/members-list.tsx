import { Button } from "../../../components/ui/button";
import { askConfirmation } from "../../../components/ui/confirm-dialog";
import { Select } from "../../../components/ui/select";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { type MemberRole, ROLE_LABELS } from "../../../lib/organization/permissions";
import { type Member, useChangeRole, useMembers, useRemoveMember } from "../api/team-api";
import { assignableRoles, canManageMember } from "../utils/member-rules";
import { useOwnerConfirmation } from "./owner-confirmation";

const fail = (fallback: string) => (error: unknown) => toast({ title: readErrorMessage(error) ?? fallback, variant: "destructive" });
const done = (answer: { message: string }) => toast({ title: answer.message, variant: "success" });

/** The members with their roles; a role picker and Remove where the caller's role allows. */
export function MembersList({ callerRole }: { callerRole: MemberRole }) {
  const { data: members, error } = useMembers();
  const { mutate: changeRole } = useChangeRole();
  const { mutate: removeMember, mutateAsync: removeConfirmed } = useRemoveMember();
  const { mutateAsync: changeConfirmed } = useChangeRole();
  const { confirmOwnerChange, ownerDialog } = useOwnerConfirmation();

  const onChangeRole = (member: Member, role: MemberRole) => {
    if (role === member.role) return;
    if (member.role !== "owner" && role !== "owner") {
      changeRole({ userId: member.userId, role }, { onSuccess: done, onError: fail("The role could not be changed.") });
      return;
    }
    const label = member.name || member.email;
    confirmOwnerChange({
      title: role === "owner" ? `Make ${label} an owner` : `Make ${label} ${ROLE_LABELS[role].toLowerCase()}`,
      message:
        role === "owner"
          ? `${label} gets the team, its plan and its owners, as you have them.`
          : `${label} stops being an owner and becomes ${ROLE_LABELS[role].toLowerCase()}.`,
      confirmLabel: "Change role",
      run: (credentials) => changeConfirmed({ userId: member.userId, role, credentials }),
      fallback: "The role could not be changed.",
    });
  };

  const onRemove = async (member: Member) => {
    if (member.role === "owner") {
      confirmOwnerChange({
        title: `Remove ${member.name || member.email}`,
        message: "This owner loses access to this organization at once, open pages included. You can invite them again later.",
        confirmLabel: "Remove",
        run: (credentials) => removeConfirmed({ userId: member.userId, credentials }),
        fallback: "The member could not be removed.",
      });
      return;
    }
    const confirmed = await askConfirmation({
      title: `Remove ${member.name || member.email}`,
      message: "They lose access to this organization at once, open pages included. You can invite them again later.",
      confirmLabel: "Remove",
      variant: "destructive",
    });
    if (confirmed) removeMember({ userId: member.userId }, { onSuccess: done, onError: fail("The member could not be removed.") });
  };

  if (error) return <p className="text-sm text-red-600">{readErrorMessage(error) ?? "Failed to load the members. Please reload the page."}</p>;
  if (!members) return <p className="text-sm text-slate-500">Loading members...</p>;
  const roles = assignableRoles(callerRole);
  return (
    <>
      <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200" aria-label="Members">
        {members.map((member) => {
          const label = member.name || member.email;
          const manageable = canManageMember(callerRole, member.role, member.you);
          return (
            <li key={member.userId} className="flex flex-wrap items-center justify-between gap-3 px-4 py-3">
              <div className="min-w-0">
                <p className="truncate text-sm font-medium text-slate-900">
                  {label}
                  {member.you ? <span className="ml-2 text-xs font-normal text-slate-500">(you)</span> : null}
                </p>
                <p className="truncate text-xs text-slate-500">{member.email}</p>
              </div>
              <div className="flex items-center gap-2">
                {manageable ? (
                  <Select
                    compact
                    aria-label={`Role of ${label}`}
                    value={member.role}
                    onChange={(event) => onChangeRole(member, event.target.value as MemberRole)}
                  >
                    {[...new Set([member.role, ...roles])].map((role) => (
                      <option key={role} value={role}>
                        {ROLE_LABELS[role]}
                      </option>
                    ))}
                  </Select>
                ) : (
                  <span className="text-sm text-slate-700">{ROLE_LABELS[member.role]}</span>
                )}
                {manageable ? (
                  <Button variant="ghost" size="sm" onClick={() => void onRemove(member)} aria-label={`Remove ${label}`}>
                    Remove
                  </Button>
                ) : null}
              </div>
            </li>
          );
        })}
      </ul>
      {ownerDialog}
    </>
  );
}
