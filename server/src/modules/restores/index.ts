import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { backupAnswers, backupsModel } from "../backups/model";
import { listRestores, requestRestore } from "./service";

/** The restore routes: a backup restored (POST /api/backups/:id/restore) and the restore history. */
export const restoresController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/backups", detail: { tags: ["Restores"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/restores/all", ({ user }) => listRestores(ctx, user.id), {
      auth: true,
      response: { 200: backupAnswers.restores },
      detail: { summary: "The user's restores, newest first" },
    })
    .post(
      "/:id/restore",
      async ({ user, params, body, set }) => {
        set.status = 201;
        return requestRestore(ctx, user.id, params.id, body);
      },
      {
        auth: true,
        params: backupsModel.idParams,
        body: backupsModel.restore,
        response: { 201: backupAnswers.restoreRequested },
        detail: { summary: "Restore a backup over its database, or as a copy into another (targetDatabase), optionally only some collections" },
      },
    );
