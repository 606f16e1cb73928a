import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { copiesAnswers, copiesModel } from "./model";
import { listDatabaseCopies } from "./service";

/** A database's copies in the customer's own buckets, beside its backups (/api/backups/copies). */
export const copiesController = (ctx: AppContext) => {
  return new Elysia({ prefix: "/api/backups", detail: { tags: ["Backups"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/copies", ({ organization, query }) => listDatabaseCopies(ctx, organization.id, query.databaseName), {
      auth: true,
      query: copiesModel.copiesQuery,
      response: { 200: copiesAnswers.databaseCopies },
      detail: {
        summary:
          "A database's backup copies in the customer's own buckets (dbvault-agent copies add): bucket, key, size, status and when the agent's daily check last looked, newest backup first",
      },
    });
};
