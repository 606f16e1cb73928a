import { bigint, boolean, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAtColumn, idColumn, timestampColumn } from "./columns";

export const userRoles = ["user", "admin"] as const;
export const userStatuses = ["active", "inactive"] as const;
export const ssoLinks = ["created", "invitation", "confirmed", "domain", "cut"] as const;

/** A person who signs in. The API key, plan and storage belong to organizations (organizations.ts). */
export const users = pgTable("users", {
  id: idColumn(),
  /** Stored lowercased and trimmed so look-ups are case-insensitive. */
  email: text("email").notNull().unique(),
  name: text("name").notNull().default(""),
  passwordHash: text("password_hash").notNull(),
  role: text("role", { enum: userRoles }).notNull().default("user"),
  status: text("status", { enum: userStatuses }).notNull().default("active"),
  isBanned: boolean("is_banned").notNull().default(false),
  banReason: text("ban_reason"),
  bannedAt: timestampColumn("banned_at"),
  /** Bumped when the password changes; tokens carrying an older version are refused. */
  tokenVersion: integer("token_version").notNull().default(0),
  /** Two-factor seed (sealed like the API key); null while two-factor sign-in is off. */
  totpSecretCiphertext: text("totp_secret_ciphertext"),
  /** A seed shown by setup and not yet confirmed with a code. */
  totpPendingCiphertext: text("totp_pending_ciphertext"),
  totpEnabledAt: timestampColumn("totp_enabled_at"),
  /** The last accepted 30-second step: a code is accepted once (RFC 6238 section 5.2). */
  totpLastStep: bigint("totp_last_step", { mode: "number" }),
  /** When the onboarding checklist's install command (marked as this user's) fetched install.sh, and downloaded the agent. */
  agentScriptFetchedAt: timestampColumn("agent_script_fetched_at"),
  agentDownloadedAt: timestampColumn("agent_downloaded_at"),
  /**
   * The one organization whose single sign-on may sign this account in (null: none), and how that
   * was settled: "created" (its SSO made the account), "invitation" (the account accepted an
   * invitation to it), "confirmed" (the account, signed in, confirmed through its provider) or
   * "domain" (its proved e-mail domain, for an account without two-factor sign-in); "cut" (a
   * password reset took an account SSO created from it: only the account's own act binds it
   * again). A session
   * from that SSO reaches that organization only (modules/auth/session-scope.ts).
   */
  ssoOrganizationId: text("sso_organization_id"),
  ssoLink: text("sso_link", { enum: ssoLinks }),
  createdAt: createdAtColumn(),
  updatedAt: timestampColumn("updated_at").notNull().defaultNow(),
});

/** A user as stored (password hash and all: never answered as is). */
export type UserRow = typeof users.$inferSelect;
