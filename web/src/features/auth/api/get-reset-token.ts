// Whether a mailed password reset link's token still works (spec 4: checked before the form shows).
import { useQuery } from "@tanstack/react-query";
import { answerOf } from "../../../lib/api-client";
import { checkResetTokenRequest } from "./auth-api";

export function useResetTokenCheck(token: string | undefined) {
  return useQuery({
    queryKey: ["auth", "reset-token", token],
    queryFn: () => answerOf(checkResetTokenRequest(token ?? "")),
    // No token in the link: nothing to ask, the page says the link is invalid.
    enabled: Boolean(token),
    // A token is checked once per visit; after the reset it no longer works and must not be asked again.
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
  });
}
