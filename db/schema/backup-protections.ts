import { integer, pgTable, text } from "drizzle-orm/pg-core";
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
  /**
   * The point-in-time window (hours) slice pruning keeps at least while the policy is on: the
   * plan's when it was turned on, raised before any plan change (backup-protection/locked-window.ts).
   */
  pitrWindowHours: integer("pitr_window_hours"),
});
