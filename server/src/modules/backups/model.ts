import { t } from "elysia";

const databaseName = t.String({ minLength: 1, maxLength: 64, error: "databaseName is required" });

export const backupsModel = {
  idParams: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
  trigger: t.Object({ databaseName }),
  listQuery: t.Object({
    limit: t.Optional(t.Numeric({ multipleOf: 1, minimum: 1, maximum: 500, error: "limit must be a whole number from 1 to 500" })),
    page: t.Optional(t.Numeric({ multipleOf: 1, minimum: 1, maximum: 1_000_000, error: "page must be a whole number from 1" })),
    databaseName: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  }),
  restore: t.Object({
    databaseName,
    targetDatabase: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 63,
        // MongoDB refuses these characters in database names.
        pattern: '^[^/\\\\. "$*<>:|?\\u0000]+$',
        error: 'targetDatabase must be a MongoDB database name: 1 to 63 characters, none of / \\ . " $ * < > : | ?',
      }),
    ),
    collections: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 255, pattern: "^[^$\\u0000]+$", error: "collections must be a list of 1 to 1000 different collection names" }), {
        minItems: 1,
        maxItems: 1000,
        uniqueItems: true,
        error: "collections must be a list of 1 to 1000 different collection names",
      }),
    ),
  }),
};
