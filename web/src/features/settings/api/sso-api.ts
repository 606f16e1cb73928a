// Settings → SSO: the current organization's single sign-on (owners only; the server checks).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { answerOf, api } from "../../../lib/api-client";

type SaveSsoBody = Parameters<typeof api.organizations.current.sso.put>[0];

export const readSsoRequest = () => api.organizations.current.sso.get();
export const saveSsoRequest = (body: SaveSsoBody) => api.organizations.current.sso.put(body);
export const removeSsoRequest = () => api.organizations.current.sso.delete();

export type SsoConnection = NonNullable<Awaited<ReturnType<typeof readSsoRequest>>["data"]>;
export type SsoDefaultRole = SsoConnection["defaultRole"];

export const ssoQueryKey = ["sso-connection"] as const;

/** The connection; not `available` in a personal organization, refused to anyone but an owner: the SSO tab stays hidden then. */
export function useSsoConnection() {
  return useQuery({ queryKey: ssoQueryKey, queryFn: () => answerOf(readSsoRequest()) });
}

export function useSaveSso() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SaveSsoBody) => answerOf(saveSsoRequest(body)),
    onSuccess: (saved) => queryClient.setQueryData(ssoQueryKey, saved),
  });
}

export function useRemoveSso() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: () => answerOf(removeSsoRequest()), onSettled: () => queryClient.invalidateQueries({ queryKey: ssoQueryKey }) });
}

export const verifySsoDomainRequest = (domain: string) => api.organizations.current.sso.domains.verify.post({ domain });

/** Asks the server to look the domain's TXT record up; the connection is read again on success. */
export function useVerifySsoDomain() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (domain: string) => answerOf(verifySsoDomainRequest(domain)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ssoQueryKey }),
  });
}
