import { useLayoutEffect } from "react";
import { TOKEN_CHECK_INTERVAL_MS } from "../../../config/constants";
import { configureApiAuth } from "../../../lib/api-client";
import { checkSessionExpiry, currentToken, handleAuthFailure, restoreSession } from "../../../lib/auth/session";
import { chosenOrganizationId } from "../../../lib/organization/chosen-organization";

// Wired at module load, before any component fetches, so the first calls already carry the token.
configureApiAuth({ getToken: currentToken, onAuthFailure: handleAuthFailure, getOrganizationId: chosenOrganizationId });

/**
 * Restores the stored session on load and checks its expiry every 30 seconds. A layout effect:
 * the session is in place before the first paint, so a signed-in user never sees the signed-out
 * navigation bar (Log in / Sign up) flash by.
 */
export function SessionManager() {
  useLayoutEffect(() => {
    restoreSession();
    const timer = setInterval(() => checkSessionExpiry(), TOKEN_CHECK_INTERVAL_MS);
    return () => clearInterval(timer);
  }, []);
  return null;
}
