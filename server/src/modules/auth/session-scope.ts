// What a session from single sign-on may not do. An organization's provider vouches for a person
// to that organization only: its owner runs the provider, so a session it opens must not reach the
// account's personal organization, its other teams, or the account itself (its e-mail, password,
// two-factor sign-in, the teams it founds or joins, the server's admin console). The guard refuses
// these operations to such a session, and never counts a re-authentication made through a
// provider for them (auth/guard.ts).
import { AppError } from "../../lib/errors";

export const SSO_SESSION_ACCOUNT_MESSAGE =
  "You signed in with your organization's single sign-on, which reaches only that organization. Sign in with your password to change your account.";

export const SSO_SESSION_OTHER_ORGANIZATION_MESSAGE =
  "You signed in with your organization's single sign-on, which reaches only that organization. Sign in with your password to open your other organizations.";

/** The account's own operations, as routes are declared (`/api/user/update`) or documented. */
export function isAccountOperation(method: string, route: string): boolean {
  const path = route.replace(/:(\w+)/g, "{$1}");
  const verb = method.toUpperCase();
  if (path === "/api/user/update" || path === "/api/user/password") return verb !== "GET";
  if (path.startsWith("/api/auth/two-factor")) return verb !== "GET";
  if (path === "/api/organizations" || path === "/api/organizations/") return verb === "POST";
  if (path === "/api/invitations/{token}/accept") return true;
  // The server's admin powers belong to the account, not to the organization.
  if (path.startsWith("/api/admin")) return true;
  if (path.startsWith("/api/kb")) return verb !== "GET" || path === "/api/kb/admin/all";
  return false;
}

/** 403 SSO_SESSION for an account operation made with a session scoped to one organization. */
export function refuseAccountOperation(method: string, route: string): void {
  if (isAccountOperation(method, route)) throw new AppError(403, "SSO_SESSION", SSO_SESSION_ACCOUNT_MESSAGE);
}

/** 403 SSO_SESSION when a scoped session names another organization than its own. */
export function refuseOtherOrganization(scope: string, requested: string | undefined): void {
  if (requested && requested !== scope) throw new AppError(403, "SSO_SESSION", SSO_SESSION_OTHER_ORGANIZATION_MESSAGE);
}
