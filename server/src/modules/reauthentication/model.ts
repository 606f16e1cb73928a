import { t } from "elysia";
import { isoDate } from "../../lib/schema";
import { passwordField } from "../auth/model";
import { secondFactorField } from "../auth/model";

/** Optional fields a sensitive request may carry to re-authenticate in place. */
export const givenCode = t.Optional(secondFactorField);

export const reauthenticationModel = {
  reauthenticate: t.Object({ password: passwordField, code: givenCode }),
};

export const reauthenticationAnswers = {
  reauthenticated: t.Object({
    message: t.String(),
    token: t.String({ description: "A bearer token stamped with this re-authentication; earlier tokens keep working, unstamped" }),
    reauthenticatedUntil: isoDate(),
  }),
};
