import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { createdAtColumn, idColumn, timestampColumn } from "./columns";
import { organizations } from "./organizations";

/** A database the user's agent can back up. Only its display name is known here, never its URI. */
export const databases = pgTable(
  "databases",
  {
    id: idColumn(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    agentId: text("agent_id").references(() => agents.id, { onDelete: "set null" }),
    name: text("name").notNull(),
    isActive: boolean("is_active").notNull().default(true),
    /** Point-in-time recovery switched on by its owner: its agent ships the oplog (modules/pitr). */
    pitrEnabled: boolean("pitr_enabled").notNull().default(false),
    /** Shipping lag its agent last reported with a heartbeat (seconds), and when (modules/pitr/lag.ts). */
    pitrLagSeconds: integer("pitr_lag_seconds"),
    pitrLagReportedAt: timestampColumn("pitr_lag_reported_at"),
    /** Since when its agent has reported the database itself unreachable (server time); null while it answers. */
    pitrUnreachableSince: timestampColumn("pitr_unreachable_since"),
    /** pitr.lag was raised and the lag has not come back under the threshold since: raised once per episode. */
    pitrLagAlerted: boolean("pitr_lag_alerted").notNull().default(false),
    /** When the scheduler next backs this database up; claimed with FOR UPDATE SKIP LOCKED. */
    nextBackupAt: timestampColumn("next_backup_at"),
    /** Its own schedule (modules/databases/slots.ts); null: the account's frequency, no fixed time, no window. */
    scheduleFrequencyHours: integer("schedule_frequency_hours"),
    /** Minutes after 00:00 UTC its slots are anchored at. */
    scheduleTimeOfDay: integer("schedule_time_of_day"),
    /** The UTC window (minutes after midnight) its scheduled backups start in; both or neither. */
    scheduleWindowStart: integer("schedule_window_start"),
    scheduleWindowEnd: integer("schedule_window_end"),
    /** The last scheduled backup that did not run, and why (agent offline, limit reached, window passed). */
    missedBackupAt: timestampColumn("missed_backup_at"),
    missedBackupReason: text("missed_backup_reason"),
    /** Collections its backups leave out (issue 44: a huge log collection nobody needs); modules/databases/exclusions.ts. */
    excludedCollections: jsonb("excluded_collections").$type<string[]>().notNull().default([]),
    createdAt: createdAtColumn(),
  },
  (table) => [uniqueIndex("databases_organization_name_idx").on(table.organizationId, table.name), index("databases_next_backup_idx").on(table.nextBackupAt)],
);
