import { t } from "elysia";
import { backupsModel } from "../backups/model";

const databaseId = t.String({ minLength: 1, maxLength: 64, error: "databaseId is required" });
const at = t.String({
  minLength: 1,
  maxLength: 40,
  error: "at must be a time to the second with its zone (e.g. 2026-11-27T14:37:05Z) or an oplog position written seconds,increment",
});
const { targetDatabase, collections } = backupsModel.restore.properties;

export const pointInTimeModel = {
  request: t.Object({
    databaseId,
    at,
    targetDatabase,
    collections,
    confirmation: t.String({ minLength: 1, maxLength: 64, error: "confirmation is required: type the name of the database that will be replaced" }),
  }),
  planQuery: t.Object({ databaseId, at }),
};

const Position = t.Object({ ts: t.String(), at: t.String() });

export const pointInTimeAnswers = {
  plan: t.Object({
    databaseId: t.String(),
    databaseName: t.String(),
    until: Position,
    base: t.Object({ id: t.String(), createdAt: t.String(), consistentAt: Position }),
    /**
     * The collections the base backup holds (null: not reported). Collections created after it
     * exist at later moments too: `collections` may name them, and the agent checks every name
     * against the database as replayed to the moment.
     */
    baseCollections: t.Union([t.Array(t.String()), t.Null()]),
    slices: t.Object({ count: t.Integer(), entries: t.Integer(), bytes: t.Integer() }),
  }),
};
