import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAtColumn, idColumn, timestampColumn } from "./columns";
import { organizations } from "./organizations";
import { users } from "./users";

/** What an API token may do; each API operation names the one it needs (server/src/lib/api-security.ts). */
export const apiTokenScopes = ["read", "backup", "restore", "admin"] as const;
export type ApiTokenScope = (typeof apiTokenScopes)[number];

/**
 * A token for scripts and CI jobs (Authorization: Bearer dbvp_…), shown once at creation and kept
 * only as a keyed hash. It acts for `userId`, its creator, in `organizationId`, and never beyond what the
 * creator's role there allows at the time of each request (a removed member's tokens stop).
 * Revoking deletes the row (the audit log keeps the record).
 */
export const apiTokens = pgTable(
  "api_tokens",
  {
    id: idColumn(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The organization it acts in, with its creator's role there at each request. */
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    scopes: jsonb("scopes").$type<ApiTokenScope[]>().notNull(),
    /** Keyed HMAC of the token (lib/secret-box.ts, purpose "api-token"): found by it, never read back. */
    tokenHash: text("token_hash").notNull().unique(),
    /** The token's first characters, so its owner can tell tokens apart in the list. */
    prefix: text("prefix").notNull(),
    expiresAt: timestampColumn("expires_at").notNull(),
    lastUsedAt: timestampColumn("last_used_at"),
    /** The client address of that last use, so its owner can tell their script from a thief. */
    lastUsedIp: text("last_used_ip"),
    createdAt: createdAtColumn(),
  },
  (table) => [index("api_tokens_user_idx").on(table.userId)],
);
