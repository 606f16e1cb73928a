import { t } from "elysia";
import { FREQUENCY_WORDS, RETENTION_OPTIONS_HOURS } from "@protocol/schedule";
import { isoDate, nullable, oneOf } from "../../lib/schema";
import { emailField } from "../auth/model";

export const settingsModel = {
  update: t.Object({
    frequency: t.Optional(
      oneOf(FREQUENCY_WORDS, "frequency must be one of hourly, daily, weekly, monthly"),
    ),
    retention: t.Optional(
      t.Integer({ error: `retention must be one of ${RETENTION_OPTIONS_HOURS.join(", ")} hours` }),
    ),
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
  }),
  databaseParams: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
  databaseUpdate: t.Object({ isActive: t.Boolean({ error: "isActive must be true or false" }) }),
};

export const settingsAnswers = {
  settings: t.Object({
    frequency: t.Integer({ description: "Hours between scheduled backups" }),
    retention: t.Integer({ description: "Hours a backup is kept" }),
    notifications: t.Object({ backupSuccess: t.Boolean(), backupFailure: t.Boolean(), agentDisconnection: t.Boolean() }),
    notificationEmail: nullable(t.String({ description: "Null: the account's e-mail" })),
  }),
  databases: t.Array(
    t.Object({
      _id: t.String(),
      id: t.String(),
      name: t.String(),
      isActive: t.Boolean(),
      agentId: nullable(t.String()),
      createdAt: isoDate(),
    }),
  ),
  apiKey: t.Object({ apiKey: t.String() }),
  testNotification: t.Object({ message: t.String(), to: t.String({ description: "Where the test e-mail went" }) }),
};
