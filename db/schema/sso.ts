import { boolean, index, pgTable, text } from "drizzle-orm/pg-core";
import { createdAtColumn, idColumn, timestampColumn } from "./columns";
import { memberRoles, organizations } from "./organizations";
import { users } from "./users";

/**
 * An organization's OpenID Connect provider (server/src/modules/sso). `allowedDomains` are the
 * e-mail domains whose people sign in through it; a domain belongs to one organization at most,
 * so "Sign in with SSO" finds the organization from the e-mail alone.
 */
export const ssoConnections = pgTable("sso_connections", {
  id: idColumn(),
  organizationId: text("organization_id")
    .notNull()
    .unique()
    .references(() => organizations.id, { onDelete: "cascade" }),
  issuer: text("issuer").notNull(),
  clientId: text("client_id").notNull(),
  /** Sealed as the API keys are (lib/secret-box.ts, purpose "sso"); never answered back. */
  clientSecretCiphertext: text("client_secret_ciphertext").notNull(),
  /** Lowercased domains, e.g. {"example.com"}. */
  allowedDomains: text("allowed_domains").array().notNull(),
  /**
   * The allowed domains the organization proved it owns: by a DNS TXT record
   * (`_dbvault-verify.<domain>` = `dbvault-verify=<domainVerificationToken>`) or a server admin's
   * word. Only these sign anyone in; a domain is proved by one organization at most.
   */
  verifiedDomains: text("verified_domains").array().notNull().default([]),
  /** The value the TXT record must hold; made with the connection. */
  domainVerificationToken: text("domain_verification_token"),
  /** The role of a member created by their first SSO sign-in. */
  defaultRole: text("default_role", { enum: memberRoles }).notNull(),
  /** Members of the allowed domains may not sign in with a password (owners with two factors excepted). */
  ssoRequired: boolean("sso_required").notNull().default(false),
  createdAt: createdAtColumn(),
  updatedAt: timestampColumn("updated_at").notNull().defaultNow(),
});

/**
 * One SSO sign-in in flight, kept in the database so that any server instance can finish it:
 * started (state, nonce and PKCE verifier, until `expiresAt`), called back once (`calledBackAt`:
 * a replayed state is refused), then handed to the browser as a one-time code exchanged once for
 * a session (`exchangedAt`). The state and the code are kept only as hashes.
 */
export const ssoSignIns = pgTable(
  "sso_sign_ins",
  {
    id: idColumn(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    stateHash: text("state_hash").notNull().unique(),
    nonce: text("nonce").notNull(),
    /** Sealed (same box as the client secret): with it and a stolen code, a reader could finish the sign-in. */
    codeVerifierCiphertext: text("code_verifier_ciphertext").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    /** A signed-in member confirming it is them before a security change (its `userId` is set at the start), not a sign-in. */
    reauthentication: boolean("reauthentication").notNull().default(false),
    expiresAt: timestampColumn("expires_at").notNull(),
    calledBackAt: timestampColumn("called_back_at"),
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    sessionCodeHash: text("session_code_hash").unique(),
    sessionCodeExpiresAt: timestampColumn("session_code_expires_at"),
    exchangedAt: timestampColumn("exchanged_at"),
    createdAt: createdAtColumn(),
  },
  (table) => [index("sso_sign_ins_expires_idx").on(table.expiresAt)],
);

export type SsoConnectionRow = typeof ssoConnections.$inferSelect;
export type SsoSignInRow = typeof ssoSignIns.$inferSelect;
