// "Confirm with SSO": members who sign in through their organization's provider (and may know no
// password) confirm it is them there. The round trip leaves the page, so where to come back and
// until when the confirmation holds are kept in sessionStorage (this tab only).
import { useMutation, useQuery } from "@tanstack/react-query";
import { answerOf, api } from "../api-client";

const RETURN_KEY = "dbvault.sso-reauthentication.return";
const UNTIL_KEY = "dbvault.sso-reauthentication.until";

/** Whether the signed-in user may confirm through SSO; asked only while a confirmation dialog is open. */
export const useSsoReauthenticationAvailable = (enabled: boolean) =>
  useQuery({
    queryKey: ["sso-reauthentication-available"],
    queryFn: () => answerOf(api.auth.reauthenticate.sso.get()),
    enabled,
    staleTime: 5 * 60_000,
  });

/** Starts the round trip: remembers this page and sends the browser to the provider. */
export const useStartSsoReauthentication = () =>
  useMutation({
    mutationFn: () => answerOf(api.auth.reauthenticate.sso.start.post()),
    onSuccess: ({ url }) => {
      sessionStorage.setItem(RETURN_KEY, `${window.location.pathname}${window.location.search}`);
      window.location.assign(url);
    },
  });

/** Back from the provider: the one-time code for a stamped token; answers it and the page to return to. */
export async function finishSsoReauthentication(code: string) {
  const confirmed = await answerOf(api.auth.reauthenticate.sso.post({ code }));
  sessionStorage.setItem(UNTIL_KEY, confirmed.reauthenticatedUntil);
  const back = sessionStorage.getItem(RETURN_KEY) ?? "/settings";
  sessionStorage.removeItem(RETURN_KEY);
  return { token: confirmed.token, back };
}

/** Until when an SSO confirmation made in this tab holds (null when none or past). */
export function ssoConfirmedUntil(now = Date.now()): Date | null {
  const until = sessionStorage.getItem(UNTIL_KEY);
  return until && Date.parse(until) > now ? new Date(until) : null;
}
