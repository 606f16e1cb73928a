import { t } from "elysia";
import { isoDate, nullable, oneOf } from "../../lib/schema";
import { emailField, sessionUserAnswer } from "../auth/model";

/** The roles a first SSO sign-in may give: ownership is only ever handed over by an owner. */
export const ssoDefaultRoles = ["admin", "operator", "viewer"] as const;

const DOMAIN_PATTERN = "^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$";

export const ssoModel = {
  save: t.Object({
    issuer: t.String({ minLength: 1, maxLength: 500, error: "Enter the provider's issuer URL" }),
    clientId: t.String({ minLength: 1, maxLength: 500, error: "Enter the client ID the provider gave DBVault" }),
    /** Left out when changing other fields of a saved connection: the stored secret stays. */
    clientSecret: t.Optional(t.String({ minLength: 1, maxLength: 2000, error: "Enter the client secret the provider gave DBVault" })),
    allowedDomains: t.Array(t.String({ pattern: DOMAIN_PATTERN, error: "Each allowed domain must be a domain name such as example.com" }), {
      minItems: 1,
      maxItems: 50,
      error: "List at least one e-mail domain (e.g. example.com), at most 50",
    }),
    defaultRole: oneOf(ssoDefaultRoles, "The role of new members must be admin, operator or viewer"),
    ssoRequired: t.Boolean({ error: "ssoRequired must be true or false" }),
  }),
  domain: t.Object({ domain: t.String({ pattern: DOMAIN_PATTERN, error: "domain must be a domain name such as example.com" }) }),
  adminDomainParams: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
  start: t.Object({ email: emailField }),
  callbackQuery: t.Object({
    code: t.Optional(t.String({ maxLength: 2000 })),
    state: t.Optional(t.String({ maxLength: 500 })),
    error: t.Optional(t.String({ maxLength: 200 })),
    error_description: t.Optional(t.String({ maxLength: 1000 })),
    iss: t.Optional(t.String({ maxLength: 500 })),
  }),
  exchange: t.Object({ code: t.String({ minLength: 1, maxLength: 200, error: "The sign-in code is missing; try “Sign in with SSO” again" }) }),
};

export const ssoAnswers = {
  connection: t.Object({
    available: t.Boolean({ description: "False in a personal organization: single sign-on is for teams" }),
    configured: t.Boolean(),
    issuer: nullable(t.String()),
    clientId: nullable(t.String()),
    /** Whether a secret is stored; the secret itself is never answered. */
    clientSecretSet: t.Boolean(),
    allowedDomains: t.Array(t.String()),
    verifiedDomains: t.Array(t.String(), { description: "The allowed domains proved to be the organization's: only these sign anyone in" }),
    domainRecord: nullable(
      t.Object(
        { name: t.String(), value: t.String() },
        { description: "The DNS TXT record that proves a domain (<domain> replaced by it), for POST …/sso/domains/verify" },
      ),
    ),
    defaultRole: oneOf(ssoDefaultRoles, "role"),
    ssoRequired: t.Boolean(),
    redirectUri: t.String({ description: "The redirect URI to register at the provider" }),
    updatedAt: nullable(isoDate()),
  }),
  start: t.Object({ url: t.String({ description: "The provider's authorization URL to send the browser to" }) }),
  verifiedDomains: t.Object({ verifiedDomains: t.Array(t.String()) }),
  session: t.Object({
    token: t.String({ description: "Bearer token (JWT); an SSO session lasts at most 12 hours" }),
    user: sessionUserAnswer,
    deviceToken: t.String(),
    organizationId: t.String({ description: "The organization signed in through: the one to act in" }),
  }),
};
