// The user's plan with its storage use, shown by the dashboard, Settings and the profile: one
// request and one cache entry for all of them.
import { useQuery } from "@tanstack/react-query";
import { type Answer, answerOrLog, api } from "../api-client";

export const userPlanRequest = () => api.user.plan.get();
export type UserPlan = Answer<typeof userPlanRequest>;

export const userPlanQueryKey = ["user", "plan"] as const;
/** The one definition of this read: every screen that shows it uses these options. */
export const userPlanQuery = { queryKey: userPlanQueryKey, queryFn: () => answerOrLog("failed to fetch plan", userPlanRequest()) };

export function useUserPlan() {
  return useQuery(userPlanQuery);
}
