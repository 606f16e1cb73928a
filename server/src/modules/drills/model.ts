import { t } from "elysia";
import { backupAnswers } from "../backups/model";

export const drillsModel = {
  start: t.Object({ databaseName: t.String({ minLength: 1, maxLength: 64, error: "databaseName is required" }) }),
};

export const drillAnswers = {
  started: backupAnswers.restoreRequested,
};
