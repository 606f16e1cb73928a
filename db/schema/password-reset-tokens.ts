import { index, pgTable, text } from "drizzle-orm/pg-core";
import { createdAtColumn, idColumn, timestampColumn } from "./columns";
import { users } from "./users";

/** Only a hash of each token is stored, so a database leak cannot reset passwords. */
export const passwordResetTokens = pgTable(
  "password_reset_tokens",
  {
    id: idColumn(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    expiresAt: timestampColumn("expires_at").notNull(),
    usedAt: timestampColumn("used_at"),
    createdAt: createdAtColumn(),
  },
  (table) => [index("password_reset_tokens_user_idx").on(table.userId)],
);
