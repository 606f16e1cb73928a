import { index, pgTable, text } from "drizzle-orm/pg-core";
import { createdAtColumn, idColumn, timestampColumn } from "./columns";
import { users } from "./users";

/**
 * An e-mail change asked for by a signed-in user: it takes effect when the link mailed to the new
 * address is opened, and the link mailed to the old one undoes it for 7 days. Tokens are stored
 * hashed, as reset tokens are.
 */
export const emailChanges = pgTable(
  "email_changes",
  {
    id: idColumn(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    oldEmail: text("old_email").notNull(),
    newEmail: text("new_email").notNull(),
    confirmTokenHash: text("confirm_token_hash").notNull().unique(),
    undoTokenHash: text("undo_token_hash").notNull().unique(),
    confirmExpiresAt: timestampColumn("confirm_expires_at").notNull(),
    undoExpiresAt: timestampColumn("undo_expires_at").notNull(),
    confirmedAt: timestampColumn("confirmed_at"),
    /** Undone by the old address's link, or replaced by a newer request before it was confirmed. */
    cancelledAt: timestampColumn("cancelled_at"),
    createdAt: createdAtColumn(),
  },
  (table) => [index("email_changes_user_idx").on(table.userId)],
);
