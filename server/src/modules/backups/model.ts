import { t } from "elysia";

const databaseName = t.String({ minLength: 1, maxLength: 64, error: "databaseName is required" });

export const backupsModel = {
  idParams: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
  trigger: t.Object({ databaseName }),
  listQuery: t.Object({
    limit: t.Optional(t.Numeric({ minimum: 1, maximum: 500, error: "limit must be a whole number from 1 to 500" })),
    page: t.Optional(t.Numeric({ minimum: 1, maximum: 1_000_000, error: "page must be a whole number from 1" })),
    databaseName: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  }),
  restore: t.Object({ databaseName }),
};
