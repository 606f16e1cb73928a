import { useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { type Profile, profileQueryKey, useProfile } from "../../../lib/api/get-profile";
import { usePlans } from "../../../lib/api/get-plans";
import { userPlanQueryKey, useUserPlan } from "../../../lib/api/get-user-plan";

/** The profile page's data: profile, current plan with storage used, and the plan catalogue. */
export function useProfileData() {
  const queryClient = useQueryClient();
  const profile = useProfile();
  const plan = useUserPlan();
  const plans = usePlans();

  // A later refetch that fails keeps the page as it was; only a first load that fails says so.
  const loadError = (profile.isError && !profile.data) || (plan.isError && !plan.data);
  const reloadPlan = useCallback(() => queryClient.invalidateQueries({ queryKey: userPlanQueryKey }), [queryClient]);
  const mergeProfile = useCallback(
    (changes: Partial<Profile>) => queryClient.setQueryData<Profile>(profileQueryKey, (current) => (current ? { ...current, ...changes } : current)),
    [queryClient],
  );
  return {
    profile: profile.data ?? null,
    plan: plan.data ?? null,
    plans: plans.data ?? null,
    loadError,
    plansError: plans.isError,
    reloadPlan,
    mergeProfile,
  };
}
