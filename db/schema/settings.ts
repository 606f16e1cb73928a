import { boolean, integer, pgTable, text } from "drizzle-orm/pg-core";
import { timestampColumn } from "./columns";
import { DEFAULT_GFS } from "../../protocol/schedule";
import { organizations } from "./organizations";

export const retentionModes = ["age", "gfs"] as const;
export type RetentionMode = (typeof retentionModes)[number];
export const drillFrequencies = ["off", "weekly", "monthly"] as const;
export type DrillFrequency = (typeof drillFrequencies)[number];

/** One row per user: schedule, retention and notification choices. */
export const settings = pgTable("settings", {
  organizationId: text("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  /** Hours between scheduled backups: 1, 24, 168 or 720. */
  frequency: integer("frequency").notNull().default(24),
  /** Hours a backup is kept ("age" retention). */
  retention: integer("retention").notNull().default(72),
  /** "age": keep `retention` hours; "gfs": keep the last N daily, weekly and monthly backups. */
  retentionMode: text("retention_mode", { enum: retentionModes }).notNull().default("age"),
  gfsDaily: integer("gfs_daily").notNull().default(DEFAULT_GFS.daily),
  gfsWeekly: integer("gfs_weekly").notNull().default(DEFAULT_GFS.weekly),
  gfsMonthly: integer("gfs_monthly").notNull().default(DEFAULT_GFS.monthly),
  /** When retention last looked at this user's backups; each pass is claimed with SKIP LOCKED. */
  retentionCheckedAt: timestampColumn("retention_checked_at"),
  /** Scheduled restore drills of every active database. */
  drillFrequency: text("drill_frequency", { enum: drillFrequencies }).notNull().default("off"),
  /** When the scheduler next runs this user's drills; claimed with FOR UPDATE SKIP LOCKED. */
  nextDrillAt: timestampColumn("next_drill_at"),
  notifyBackupSuccess: boolean("notify_backup_success").notNull().default(true),
  notifyBackupFailure: boolean("notify_backup_failure").notNull().default(true),
  notifyAgentDisconnection: boolean("notify_agent_disconnection").notNull().default(true),
  /** Where notifications go; null means the account's e-mail. */
  notificationEmail: text("notification_email"),
  updatedAt: timestampColumn("updated_at").notNull().defaultNow(),
});
