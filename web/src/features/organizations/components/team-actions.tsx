import { type FormEvent, useState } from "react";
import { useLocation } from "wouter";
import { Button } from "../../../components/ui/button";
import { askConfirmation } from "../../../components/ui/confirm-dialog";
import { Field } from "../../../components/ui/field";
import { Select } from "../../../components/ui/select";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import type { Organization } from "../../../lib/api/get-organizations";
import { chooseOrganization } from "../../../lib/organization/chosen-organization";
import { useDeleteTeam, useLeaveTeam, useMembers, useRenameTeam, useTransferOwnership } from "../api/team-api";
import { useOwnerConfirmation } from "./owner-confirmation";

const fail = (fallback: string) => (error: unknown) => toast({ title: readErrorMessage(error) ?? fallback, variant: "destructive" });

/** Rename the team (admins and owners). */
export function RenameTeamForm({ organization }: { organization: Organization }) {
  const [name, setName] = useState(organization.name);
  const { mutate: rename, isPending } = useRenameTeam();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    rename(name.trim(), {
      onSuccess: (renamed) => toast({ title: `The team is now called ${renamed.name}`, variant: "success" }),
      onError: fail("The team could not be renamed."),
    });
  };
  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-3 sm:flex-row sm:items-end">
      <Field label="Team name" value={name} onChange={(event) => setName(event.target.value)} maxLength={100} className="sm:w-80" />
      <Button type="submit" variant="outline" disabled={isPending || !name.trim() || name.trim() === organization.name}>
        Rename
      </Button>
    </form>
  );
}

/** Leave the team, hand it to another member (owners), or delete it (owners). */
export function TeamExits({ organization }: { organization: Organization }) {
  const [, setLocation] = useLocation();
  const { data: members } = useMembers();
  const [heir, setHeir] = useState("");
  const { mutate: leave } = useLeaveTeam();
  const { mutateAsync: transfer } = useTransferOwnership();
  const { confirmOwnerChange, ownerDialog } = useOwnerConfirmation();
  const { mutate: deleteTeam } = useDeleteTeam();
  const isOwner = organization.role === "owner";
  const others = (members ?? []).filter((member) => !member.you);

  const backToPersonal = (answer: { message: string }) => {
    chooseOrganization(null);
    setLocation("/dashboard");
    toast({ title: answer.message, variant: "success" });
  };

  const onLeave = async () => {
    const confirmed = await askConfirmation({
      title: `Leave ${organization.name}`,
      message: "You lose access to its databases and backups. A member with the rights can invite you again.",
      confirmLabel: "Leave",
      variant: "destructive",
    });
    if (confirmed) leave(undefined, { onSuccess: backToPersonal, onError: fail("You could not leave the team.") });
  };

  const onTransfer = () => {
    const member = others.find((candidate) => candidate.userId === heir);
    if (!member) return;
    confirmOwnerChange({
      title: "Transfer ownership",
      message: `${member.name || member.email} becomes an owner and you become an admin.`,
      confirmLabel: "Transfer",
      run: (credentials) => transfer({ userId: member.userId, credentials }),
      fallback: "Ownership could not be transferred.",
    });
  };

  const onDelete = async () => {
    const confirmed = await askConfirmation({
      title: `Delete ${organization.name}`,
      message: "Every member loses it at once. This cannot be undone.",
      confirmLabel: "Delete team",
      variant: "destructive",
    });
    if (confirmed) deleteTeam(undefined, { onSuccess: backToPersonal, onError: fail("The team could not be deleted.") });
  };

  return (
    <div className="space-y-4">
      {isOwner && others.length > 0 ? (
        <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
          <div>
            <label htmlFor="transfer-to" className="block text-sm font-medium text-slate-700">
              Transfer ownership to
            </label>
            <Select id="transfer-to" value={heir} onChange={(event) => setHeir(event.target.value)} className="mt-1 sm:w-80">
              <option value="">Choose a member</option>
              {others.map((member) => (
                <option key={member.userId} value={member.userId}>
                  {member.name || member.email}
                </option>
              ))}
            </Select>
          </div>
          <Button variant="outline" disabled={!heir} onClick={onTransfer}>
            Transfer ownership
          </Button>
        </div>
      ) : null}
      <div className="flex flex-wrap gap-3">
        <Button variant="outline" onClick={() => void onLeave()}>
          Leave team
        </Button>
        {isOwner ? (
          <Button variant="destructive" onClick={() => void onDelete()}>
            Delete team
          </Button>
        ) : null}
      </div>
      {ownerDialog}
    </div>
  );
}
