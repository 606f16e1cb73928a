import { t } from "elysia";
import { drillFrequencies, retentionModes } from "@db/schema";
import { FREQUENCY_WORDS, GFS_LIMITS, RETENTION_OPTIONS_HOURS } from "@protocol/schedule";
import { isoDate, nullable, oneOf } from "../../lib/schema";
import { emailField } from "../auth/model";

const gfsError = `gfs must hold daily (0-${GFS_LIMITS.daily}), weekly (0-${GFS_LIMITS.weekly}) and monthly (0-${GFS_LIMITS.monthly}) as whole numbers`;
const gfsCount = (rule: keyof typeof GFS_LIMITS) =>
  t.Integer({ minimum: 0, maximum: GFS_LIMITS[rule], error: `gfs.${rule} must be a whole number from 0 to ${GFS_LIMITS[rule]}` });
const gfsNumeric = (rule: keyof typeof GFS_LIMITS) =>
  t.Numeric({ multipleOf: 1, minimum: 0, maximum: GFS_LIMITS[rule], error: `${rule} must be a whole number from 0 to ${GFS_LIMITS[rule]}` });

const keepReasons = [
  "kept-forever",
  "newest",
  "last-verified",
  "last-good",
  "retention",
  "recent",
  "daily",
  "weekly",
  "monthly",
  "expired",
  "not-selected",
  "beyond-plan",
] as const;

export const settingsModel = {
  update: t.Object({
    frequency: t.Optional(oneOf(FREQUENCY_WORDS, "frequency must be one of hourly, daily, weekly, monthly")),
    retention: t.Optional(t.Integer({ error: `retention must be one of ${RETENTION_OPTIONS_HOURS.join(", ")} hours` })),
    notifications: t.Optional(
      t.Object(
        {
          backupSuccess: t.Optional(t.Boolean()),
          backupFailure: t.Optional(t.Boolean()),
          agentDisconnection: t.Optional(t.Boolean()),
        },
        { error: "notifications must hold backupSuccess, backupFailure and agentDisconnection as true or false" },
      ),
    ),
    notificationEmail: t.Optional(t.Union([t.Literal(""), t.Null(), emailField], { error: "Please enter a valid email address" })),
    retentionMode: t.Optional(oneOf(retentionModes, "retentionMode must be age or gfs")),
    gfs: t.Optional(
      t.Object(
        {
          daily: gfsCount("daily"),
          weekly: gfsCount("weekly"),
          monthly: gfsCount("monthly"),
        },
        { error: gfsError },
      ),
    ),
    drillFrequency: t.Optional(oneOf(drillFrequencies, "drillFrequency must be off, weekly or monthly")),
  }),
  retentionPreviewQuery: t.Object({
    mode: t.Optional(oneOf(retentionModes, "mode must be age or gfs")),
    retention: t.Optional(t.Numeric({ multipleOf: 1, minimum: 1, maximum: 100_000, error: "retention must be a whole number of hours" })),
    daily: t.Optional(gfsNumeric("daily")),
    weekly: t.Optional(gfsNumeric("weekly")),
    monthly: t.Optional(gfsNumeric("monthly")),
  }),
};

export const settingsAnswers = {
  settings: t.Object({
    frequency: t.Integer({ description: "Hours between scheduled backups" }),
    retention: t.Integer({ description: "Hours a backup is kept" }),
    notifications: t.Object({ backupSuccess: t.Boolean(), backupFailure: t.Boolean(), agentDisconnection: t.Boolean() }),
    notificationEmail: nullable(t.String({ description: "Null: the account's e-mail" })),
    retentionMode: oneOf(retentionModes, "retentionMode"),
    gfs: t.Object(
      { daily: t.Integer(), weekly: t.Integer(), monthly: t.Integer() },
      { description: "Grandfather-father-son: the last N daily, weekly and monthly backups (with retentionMode gfs)" },
    ),
    drillFrequency: oneOf(drillFrequencies, "drillFrequency"),
    nextDrillAt: nullable(isoDate()),
  }),
  retentionPreview: t.Object({
    policy: nullable(
      t.Object({
        mode: oneOf(retentionModes, "mode"),
        hours: t.Optional(t.Integer()),
        daily: t.Optional(t.Integer()),
        weekly: t.Optional(t.Integer()),
        monthly: t.Optional(t.Integer()),
        limitHours: t.Optional(t.Integer({ description: "The plan's retention limit: GFS keeps nothing older" })),
      }),
    ),
    kept: t.Integer({ description: "Completed backups the policy keeps" }),
    deleted: t.Integer({ description: "Completed backups it would delete" }),
    backups: t.Array(
      t.Object({
        id: t.String(),
        databaseName: t.String(),
        createdAt: isoDate(),
        size: t.Number(),
        keep: t.Boolean(),
        reasons: t.Array(oneOf(keepReasons, "reason"), { description: "Why it is kept, or the one reason it goes" }),
      }),
      { description: "Every kept backup and the newest 100 to be deleted, newest first" },
    ),
  }),
  apiKey: t.Object({ apiKey: t.String() }),
  testNotification: t.Object({ message: t.String(), to: t.String({ description: "Where the test e-mail went" }) }),
};
