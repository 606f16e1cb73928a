import { Alert } from "../../../components/ui/alert";

/**
 * Said in place of the account's own forms (name and e-mail, password, two-factor sign-in) to a
 * session from an organization's single sign-on: the server refuses them such a session (403
 * SSO_SESSION), since the provider vouches for the person to that organization only.
 */
export function SsoManagedNotice({ what }: { what: string }) {
  return (
    <div data-testid="sso-managed-notice">
      <Alert tone="info">
        Your account is managed by your organization's single sign-on in this session: {what} cannot be changed here. To change {what}, sign out and sign in
        with your password.
      </Alert>
    </div>
  );
}
