import { t } from "elysia";
import { isoDate } from "../../lib/schema";
import { passwordField } from "../auth/model";
import { secondFactorField } from "../auth/model";

/** Optional fields a sensitive request may carry to re-authenticate in place. */
export const givenCode = t.Optional(secondFactorField);

export const reauthenticationModel = {
  reauthenticate: t.Object({ password: passwordField, code: givenCode }),
  sso: t.Object({ code: t.String({ minLength: 1, maxLength: 200, error: "The confirmation code is missing; try “Confirm with SSO” again" }) }),
};

export const reauthenticationAnswers = {
  ssoAvailable: t.Object({ available: t.Boolean() }),
  ssoStart: t.Object({ url: t.String({ description: "The provider's authorization URL (a fresh sign-in) to send the browser to" }) }),
  reauthenticated: t.Object({
    message: t.String(),
    token: t.String({ description: "A bearer token stamped with this re-authentication; earlier tokens keep working, unstamped" }),
    reauthenticatedUntil: isoDate(),
  }),
};
