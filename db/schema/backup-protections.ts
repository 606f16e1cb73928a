import { pgTable, text } from "drizzle-orm/pg-core";
import { timestampColumn } from "./columns";
import { organizations } from "./organizations";

/**
 * An account's "Protect backups" policy (modules/backup-protection): a row while it is on. Asking
 * to turn it off sets `offAt`, 7 days ahead; until then it stays in force and can be cancelled.
 */
export const backupProtections = pgTable("backup_protections", {
  organizationId: text("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  enabledAt: timestampColumn("enabled_at").notNull(),
  /** When turning off was asked; null while no such request waits. */
  offRequestedAt: timestampColumn("off_requested_at"),
  /** When the policy stops, once asked: `offRequestedAt` plus the wait. */
  offAt: timestampColumn("off_at"),
});
