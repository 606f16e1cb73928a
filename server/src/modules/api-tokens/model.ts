import { t } from "elysia";
import { apiTokenScopes } from "@db/schema";
import { isoDate, nullable, oneOf } from "../../lib/schema";
import { passwordField } from "../auth/model";
import { givenCode } from "../reauthentication/model";

export const MAX_TOKEN_NAME_LENGTH = 100;
/** A token always expires: at most a year after its creation. */
export const MAX_TOKEN_DAYS = 365;

const scopesError = `scopes must be a list of one or more of ${apiTokenScopes.join(", ")}`;

export const apiTokenModel = {
  create: t.Object({
    name: t.String({ minLength: 1, maxLength: MAX_TOKEN_NAME_LENGTH, error: `name must be 1 to ${MAX_TOKEN_NAME_LENGTH} characters` }),
    scopes: t.Array(oneOf(apiTokenScopes, scopesError), { minItems: 1, maxItems: apiTokenScopes.length * 2, error: scopesError }),
    expiresInDays: t.Integer({ minimum: 1, maximum: MAX_TOKEN_DAYS, error: `expiresInDays must be a whole number of days from 1 to ${MAX_TOKEN_DAYS}` }),
    /** The password (and code) here, or a session re-authenticated in the last 10 minutes. */
    password: t.Optional(passwordField),
    code: givenCode,
  }),
  params: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
};

const apiToken = {
  id: t.String(),
  name: t.String(),
  scopes: t.Array(oneOf(apiTokenScopes, "scope")),
  prefix: t.String({ description: "The token's first characters, to tell tokens apart" }),
  createdAt: isoDate(),
  expiresAt: isoDate(),
  lastUsedAt: nullable(isoDate()),
  lastUsedFrom: nullable(t.String({ description: "The client address of the last use" })),
};

export const apiTokenAnswers = {
  created: t.Object({ ...apiToken, token: t.String({ description: "The token (dbvp_…); shown only now, the server keeps a hash" }) }),
  list: t.Array(t.Object(apiToken)),
};
