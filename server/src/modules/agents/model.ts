import { t } from "elysia";
import { oneOf } from "../../lib/schema";

export const agentsModel = {
  manageParams: t.Object({ agentId: t.String({ minLength: 1, maxLength: 64 }) }),
  manage: t.Object({ action: oneOf(["restart", "update", "reset"] as const, "action must be restart, update or reset") }),
  backupParams: t.Object({ backupId: t.String({ minLength: 1, maxLength: 64 }) }),
  partParams: t.Object({
    backupId: t.String({ minLength: 1, maxLength: 64 }),
    partNumber: t.Numeric({ multipleOf: 1, minimum: 0, maximum: 99_999, error: "partNumber must be a whole number from 0" }),
  }),
};
