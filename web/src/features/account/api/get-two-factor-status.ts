// Whether two-factor sign-in is on, and how many recovery codes are left (Profile → Security).
import { useQuery } from "@tanstack/react-query";
import { answerOf } from "../../../lib/api-client";
import { twoFactorStatusRequest } from "./two-factor-api";

export const twoFactorStatusQueryKey = ["user", "two-factor"] as const;

export function useTwoFactorStatus() {
  return useQuery({ queryKey: twoFactorStatusQueryKey, queryFn: () => answerOf(twoFactorStatusRequest()) });
}
