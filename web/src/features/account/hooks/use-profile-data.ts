import { useProfile } from "../../../lib/api/get-profile";
import { usePlans } from "../../../lib/api/get-plans";
import { useUserPlan } from "../../../lib/api/get-user-plan";

/** The profile page's data: profile, current plan with storage used, and the plan catalogue. */
export function useProfileData() {
  const profile = useProfile();
  const plan = useUserPlan();
  const plans = usePlans();

  // A later refetch that fails keeps the page as it was; only a first load that fails says so.
  const loadError = (profile.isError && !profile.data) || (plan.isError && !plan.data);
  return {
    profile: profile.data ?? null,
    plan: plan.data ?? null,
    plans: plans.data ?? null,
    loadError,
    plansError: plans.isError,
  };
}
