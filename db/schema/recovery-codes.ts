import { index, pgTable, text, unique } from "drizzle-orm/pg-core";
import { createdAtColumn, idColumn, timestampColumn } from "./columns";
import { users } from "./users";

/** Two-factor recovery codes, each usable once; only a keyed hash of each is stored. */
export const recoveryCodes = pgTable(
  "recovery_codes",
  {
    id: idColumn(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: timestampColumn("used_at"),
    createdAt: createdAtColumn(),
  },
  (table) => [unique("recovery_codes_user_code_unique").on(table.userId, table.codeHash), index("recovery_codes_user_idx").on(table.userId)],
);
