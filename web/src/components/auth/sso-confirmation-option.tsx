import type { ReactNode } from "react";
import { readErrorMessage } from "../../lib/api-client";
import { formatDateTime } from "../../lib/format-date";
import { ssoConfirmedUntil, useSsoReauthenticationAvailable, useStartSsoReauthentication } from "../../lib/auth/sso-reauthentication";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";

/**
 * Wraps the fields that confirm it is the owner (current password, code) with "Confirm with SSO"
 * for members who sign in through their organization's provider, who may know no password. Once
 * confirmed there (10 minutes, this tab), the fields give way to a note: nothing more is asked.
 * `active` while the fields are shown, so availability is asked only then.
 */
export function SsoConfirmationOption({ active, children }: { active: boolean; children: ReactNode }) {
  const ssoAvailable = useSsoReauthenticationAvailable(active).data?.available === true;
  const startSso = useStartSsoReauthentication();
  const confirmedUntil = active ? ssoConfirmedUntil() : null;
  if (confirmedUntil) {
    return <p className="text-sm text-slate-600">You confirmed it is you with SSO: you can make this change until {formatDateTime(confirmedUntil)}.</p>;
  }
  return (
    <>
      {startSso.error ? <Alert>{readErrorMessage(startSso.error) ?? "Could not reach your sign-in provider. Please try again."}</Alert> : null}
      {children}
      {ssoAvailable ? (
        <Button variant="outline" className="w-full" onClick={() => startSso.mutate()} disabled={startSso.isPending}>
          {startSso.isPending ? "Redirecting..." : "Confirm with SSO"}
        </Button>
      ) : null}
    </>
  );
}
