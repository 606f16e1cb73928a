// The public plan catalogue (pricing on the landing page, plan choice on the profile).
import { useQuery } from "@tanstack/react-query";
import { type Answer, answerOrLog, api } from "../api-client";

export const plansRequest = () => api.settings.plans.get();
export type Plan = Answer<typeof plansRequest>[number];

export const plansQueryKey = ["plans"] as const;
/** The one definition of this read: every screen that shows it uses these options. */
export const plansQuery = { queryKey: plansQueryKey, queryFn: () => answerOrLog("failed to fetch plans", plansRequest()) };

export function usePlans() {
  return useQuery(plansQuery);
}
