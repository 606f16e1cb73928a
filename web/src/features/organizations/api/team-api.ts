// Settings → Team and the invitation page: members, invitations, creating, leaving, handing over
// and deleting a team. Every call acts in the organization chosen in the switcher.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type Answer, answerOf, api } from "../../../lib/api-client";
import { organizationsQueryKey } from "../../../lib/api/get-organizations";
import type { MemberRole } from "../../../lib/organization/permissions";

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

export const useInvite = () => useTeamMutation((input: { email: string; role: MemberRole }) => answerOf(current.invitations.post(input)));
export const useRevokeInvitation = () => useTeamMutation((id: string) => answerOf(current.invitations({ id }).delete()));
export const useChangeRole = () =>
  useTeamMutation((input: { userId: string; role: MemberRole }) => answerOf(current.members({ userId: input.userId }).patch({ role: input.role })));
export const useRemoveMember = () => useTeamMutation((userId: string) => answerOf(current.members({ userId }).delete()));
export const useTransferOwnership = () => useTeamMutation((userId: string) => answerOf(current.transfer.post({ userId })));
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
