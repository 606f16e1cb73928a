import { boolean, integer, pgTable, text } from "drizzle-orm/pg-core";
import { timestampColumn } from "./columns";
import { users } from "./users";

/** One row per user: schedule, retention and notification choices. */
export const settings = pgTable("settings", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  /** Hours between scheduled backups: 1, 24, 168 or 720. */
  frequency: integer("frequency").notNull().default(24),
  /** Hours a backup is kept. */
  retention: integer("retention").notNull().default(72),
  notifyBackupSuccess: boolean("notify_backup_success").notNull().default(true),
  notifyBackupFailure: boolean("notify_backup_failure").notNull().default(true),
  notifyAgentDisconnection: boolean("notify_agent_disconnection").notNull().default(true),
  /** Where notifications go; null means the account's e-mail. */
  notificationEmail: text("notification_email"),
  updatedAt: timestampColumn("updated_at").notNull().defaultNow(),
});
