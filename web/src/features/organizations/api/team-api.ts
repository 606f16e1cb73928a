// Settings → Team and the invitation page: members, invitations, creating, leaving, handing over
// and deleting a team. Every call acts in the organization chosen in the switcher.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type Answer, answerOf, api } from "../../../lib/api-client";
import { organizationsQueryKey } from "../../../lib/api/get-organizations";
import type { MemberRole } from "../../../lib/organization/permissions";
import type { Credentials } from "../../../components/auth/reauthentication-dialog";
import { stampSession } from "../../../lib/auth/stamp-session";

const current = api.organizations.current;

export const membersRequest = () => current.members.get();
export const invitationsRequest = () => current.invitations.get();
export type Member = Answer<typeof membersRequest>[number];
export type PendingInvitation = Answer<typeof invitationsRequest>[number];

const membersQueryKey = ["organizations", "current", "members"] as const;
const invitationsQueryKey = ["organizations", "current", "invitations"] as const;

export function useMembers() {
  return useQuery({ queryKey: membersQueryKey, queryFn: () => answerOf(membersRequest()) });
}

export function useInvitations(enabled: boolean) {
  return useQuery({ queryKey: invitationsQueryKey, queryFn: () => answerOf(invitationsRequest()), enabled });
}

/** A change to the team: what it answers, then every organization read is fetched again. */
function useTeamMutation<Input, Output>(mutationFn: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn, onSuccess: () => queryClient.invalidateQueries({ queryKey: organizationsQueryKey }) });
}

// Making, demoting or removing an owner needs the owner's password (and code) in the request, or
// a session stamped in the last 10 minutes (issue 41): `credentials` come from ReauthenticationDialog.
export const useInvite = () =>
  useTeamMutation((input: { email: string; role: MemberRole; credentials?: Credentials }) =>
    answerOf(current.invitations.post({ email: input.email, role: input.role, ...input.credentials })),
  );
export const useRevokeInvitation = () => useTeamMutation((id: string) => answerOf(current.invitations({ id }).delete()));
export const useChangeRole = () =>
  useTeamMutation((input: { userId: string; role: MemberRole; credentials?: Credentials }) =>
    answerOf(current.members({ userId: input.userId }).patch({ role: input.role, ...input.credentials })),
  );
/** DELETE takes no body: an owner's removal goes through a session stamped with the credentials first. */
export const useRemoveMember = () =>
  useTeamMutation(async (input: { userId: string; credentials?: Credentials }) => {
    if (input.credentials) await stampSession(input.credentials);
    return answerOf(current.members({ userId: input.userId }).delete());
  });
export const useTransferOwnership = () =>
  useTeamMutation((input: { userId: string; credentials?: Credentials }) => answerOf(current.transfer.post({ userId: input.userId, ...input.credentials })));
export const useRenameTeam = () => useTeamMutation((name: string) => answerOf(current.patch({ name })));
export const useCreateTeam = () => useTeamMutation((name: string) => answerOf(api.organizations.post({ name })));
/** Leaving and deleting end with a switch back to the personal organization, which refetches everything. */
export const useLeaveTeam = () => useMutation({ mutationFn: () => answerOf(current.leave.post()) });
export const useDeleteTeam = () => useMutation({ mutationFn: () => answerOf(current.delete()) });

export const invitationPreviewRequest = (token: string) => api.invitations({ token }).get();
export type InvitationPreview = Answer<typeof invitationPreviewRequest>;

export function useInvitationPreview(token: string) {
  return useQuery({ queryKey: ["invitations", token], queryFn: () => answerOf(invitationPreviewRequest(token)) });
}

export const useAcceptInvitation = () => useMutation({ mutationFn: (token: string) => answerOf(api.invitations({ token }).accept.post()) });
