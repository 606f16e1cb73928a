// The user's API tokens for scripts and CI jobs (Profile → Security → API tokens): the list,
// and creating and revoking one, each refreshing the list.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type Answer, answerOf, api } from "../../../lib/api-client";

const apiTokens = api.user["api-tokens"];

export const apiTokensRequest = () => apiTokens.get();
export type ApiToken = Answer<typeof apiTokensRequest>[number];
export type ApiTokenScope = ApiToken["scopes"][number];
/** With the password (and code) unless the session re-authenticated in the last 10 minutes. */
export type NewApiToken = { name: string; scopes: ApiTokenScope[]; expiresInDays: number; password?: string; code?: string };

export const apiTokensQueryKey = ["user", "api-tokens"] as const;

export function useApiTokens() {
  return useQuery({ queryKey: apiTokensQueryKey, queryFn: () => answerOf(apiTokensRequest()) });
}

/** Creates a token; the answer holds the token itself, which the server never shows again. */
export function useCreateApiToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: NewApiToken) => answerOf(apiTokens.post(input)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiTokensQueryKey }),
  });
}

export function useRevokeApiToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => answerOf(apiTokens({ id }).delete()),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: apiTokensQueryKey }),
  });
}
