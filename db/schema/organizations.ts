import { bigint, boolean, index, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAtColumn, idColumn, timestampColumn } from "./columns";
import { plans } from "./plans";
import { users } from "./users";

/**
 * The roles of a member, from most to least able (server/src/modules/organizations/roles.ts):
 * owners hold the plan, the organization itself and backup protection; admins run settings,
 * agents, keys, webhooks and members; operators run backups, restores and drills; viewers read.
 */
export const memberRoles = ["owner", "admin", "operator", "viewer"] as const;
export type MemberRole = (typeof memberRoles)[number];

/**
 * What owns databases, agents, backups and settings: a team, or the personal organization every
 * account gets at registration. A personal organization shares its founder's id, so the accounts
 * that existed before organizations moved into theirs with every owned row's id unchanged.
 */
export const organizations = pgTable(
  "organizations",
  {
    id: idColumn(),
    name: text("name").notNull(),
    /** Created with its founder's account (and deleted with it); a team is created by a member. */
    personal: boolean("personal").notNull().default(false),
    /** AES-256-GCM ciphertext of the API key agents register with, under the server's secret, so an admin can reveal it. */
    apiKeyCiphertext: text("api_key_ciphertext").notNull(),
    /** HMAC-SHA256 of the API key under the server's secret: the look-up column. */
    apiKeyHash: text("api_key_hash").notNull().unique(),
    planId: text("plan_id").references(() => plans.id, { onDelete: "set null" }),
    storageUsed: bigint("storage_used", { mode: "number" }).notNull().default(0),
    createdAt: createdAtColumn(),
  },
  (table) => [index("organizations_plan_idx").on(table.planId)],
);

/** A user's place in an organization. Every organization keeps at least one owner. */
export const memberships = pgTable(
  "memberships",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: memberRoles }).notNull(),
    createdAt: createdAtColumn(),
  },
  (table) => [primaryKey({ columns: [table.organizationId, table.userId] }), index("memberships_user_idx").on(table.userId)],
);

/**
 * An invitation e-mailed to join an organization with a role: the link's token is kept only as
 * its hash, valid until `expiresAt`, used once (`acceptedAt`) unless revoked first.
 */
export const invitations = pgTable(
  "invitations",
  {
    id: idColumn(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Stored lowercased and trimmed, as users' e-mails are. */
    email: text("email").notNull(),
    role: text("role", { enum: memberRoles }).notNull(),
    tokenHash: text("token_hash").notNull(),
    invitedBy: text("invited_by").references(() => users.id, { onDelete: "set null" }),
    expiresAt: timestampColumn("expires_at").notNull(),
    acceptedAt: timestampColumn("accepted_at"),
    revokedAt: timestampColumn("revoked_at"),
    createdAt: createdAtColumn(),
  },
  (table) => [uniqueIndex("invitations_token_idx").on(table.tokenHash), index("invitations_organization_idx").on(table.organizationId)],
);

export type OrganizationRow = typeof organizations.$inferSelect;
export type MembershipRow = typeof memberships.$inferSelect;
export type InvitationRow = typeof invitations.$inferSelect;
