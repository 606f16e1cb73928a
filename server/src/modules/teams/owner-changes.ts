// Changes that make, demote or remove an owner hand the organization over, as a transfer does:
// they need an owner's signed-in session (never an API token, whatever its scopes) that proved
// to be its owner in the last ten minutes (the password and code in the request, or a stamped
// session; reauthentication/service.ts).
import type { AppContext } from "../../context";
import { forbidden } from "../../lib/errors";
import type { AuthenticatedUser, SessionInfo } from "../auth/guard";
import { type GivenCredentials, requireRecentReauthentication } from "../reauthentication/service";

/** What a members' route calls before a change that makes, demotes or removes an owner. */
export type ConfirmOwnerChange = () => Promise<void>;

export const ownerChangeConfirmation =
  (ctx: AppContext, user: AuthenticatedUser, session: SessionInfo, given: GivenCredentials = {}): ConfirmOwnerChange =>
  async () => {
    if (session.apiToken) {
      throw forbidden("Making, demoting or removing an owner needs an owner signed in to DBVault, not an API token: do it in Settings → Team.");
    }
    await requireRecentReauthentication(ctx, user, session, given);
  };
