// The profile page's changes as mutations, each writing what it changed into the shared entries
// (profile, plan) that the dashboard and Settings read too.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { answerOf } from "../../../lib/api-client";
import { mergeIntoProfile } from "../../../lib/api/get-profile";
import { userPlanQueryKey } from "../../../lib/api/get-user-plan";
import { changePasswordRequest, switchPlanRequest, updateProfileRequest } from "./account-api";

/** The name, and the e-mail (which changes only once the link mailed to it is opened). */
export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: Parameters<typeof updateProfileRequest>[0]) => answerOf(updateProfileRequest(input)),
    onSuccess: ({ user }) => mergeIntoProfile(queryClient, { name: user.name, email: user.email }),
  });
}

/** A new password; with rotateApiKey the answer carries the new API key too. */
export function useChangePassword() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: Parameters<typeof changePasswordRequest>[0]) => answerOf(changePasswordRequest(input)),
    onSuccess: ({ apiKey }) => {
      if (apiKey) mergeIntoProfile(queryClient, { apiKey });
    },
  });
}

/** The plan and its limits change at once: the plan and storage entry is read again. */
export function useSwitchPlan() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (planId: string) => answerOf(switchPlanRequest(planId)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: userPlanQueryKey }),
  });
}
