import { t } from "elysia";
import { isoDate, nullable } from "../../lib/schema";

export const databasesModel = {
  params: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
  /** The point-in-time switch's path names it databaseId (PUT /api/pitr/databases/:databaseId). */
  pitrParams: t.Object({ databaseId: t.String({ minLength: 1, maxLength: 64, error: "databaseId is required" }) }),
  activate: t.Object({ isActive: t.Boolean({ error: "isActive must be true or false" }) }),
  agent: t.Object({ agentId: t.String({ minLength: 1, maxLength: 64, error: "agentId must be the id of one of your agents" }) }),
  exclusions: t.Object({
    collections: t.Array(t.String({ maxLength: 1000 }), {
      maxItems: 1000,
      error: 'collections must be a list of collection names (at most 100), e.g. ["logs"]',
    }),
  }),
  pitrSwitch: t.Object({ enabled: t.Boolean({ error: "enabled must be true or false" }) }),
  /** PUT /api/settings/databases/:id/schedule: null fields follow the account's settings. */
  schedule: t.Object({
    frequency: nullable(t.String({ maxLength: 16, description: "hourly, daily, weekly or monthly; null: the account's frequency" })),
    timeOfDay: nullable(t.String({ maxLength: 5, description: "HH:MM UTC the slots fall on; null: no fixed time" })),
    windowStart: nullable(t.String({ maxLength: 5, description: "HH:MM UTC; with windowEnd, the window backups start in" })),
    windowEnd: nullable(t.String({ maxLength: 5, description: "HH:MM UTC; before windowStart wraps past midnight" })),
  }),
};

export const databasesAnswers = {
  databases: t.Array(
    t.Object({
      _id: t.String(),
      id: t.String(),
      name: t.String(),
      isActive: t.Boolean(),
      pitrEnabled: t.Boolean({ description: "Point-in-time recovery switched on (its agent ships the oplog)" }),
      excludedCollections: t.Array(t.String(), { description: "Collections its backups leave out" }),
      agentId: nullable(t.String({ description: "The agent that runs its backups and restores" })),
      agents: t.Array(t.Object({ id: t.String(), name: t.String(), status: t.String() }), {
        description: "The agents holding it in their config; the user may choose among them",
      }),
      schedule: t.Object({
        frequencyHours: nullable(t.Number({ description: "Its own frequency; null: the account's" })),
        everyHours: t.Number({ description: "The frequency in effect" }),
        timeOfDay: nullable(t.String({ description: "HH:MM UTC" })),
        windowStart: nullable(t.String({ description: "HH:MM UTC" })),
        windowEnd: nullable(t.String({ description: "HH:MM UTC" })),
      }),
      nextBackupAt: nullable(isoDate()),
      missedBackup: nullable(t.Object({ at: isoDate(), reason: t.String() })),
      createdAt: isoDate(),
    }),
  ),
};
