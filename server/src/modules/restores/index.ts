import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { actorOf } from "../audit/service";
import { backupAnswers, backupsModel } from "../backups/model";
import { pointInTimeAnswers, pointInTimeModel } from "./model";
import { describeRestorePlan, requestPointInTimeRestore } from "./point-in-time";
import { listRestoreConnections, requestRestoreToConnection } from "./other-connection";
import { listRestores, requestRestore } from "./service";

/** The restore routes: a backup restored, a database restored to a moment, and the restore history. */
export const restoresController = (ctx: AppContext) => new Elysia().use(backupRestores(ctx)).use(pointInTimeRestores(ctx));

const backupRestores = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/backups", detail: { tags: ["Restores"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/restores/all", ({ organization }) => listRestores(ctx, organization.id), {
      auth: true,
      response: { 200: backupAnswers.restores },
      detail: { summary: "The user's restores, newest first" },
    })
    .get("/:id/restore-connections", ({ organization, params }) => listRestoreConnections(ctx, organization.id, params.id), {
      auth: true,
      params: backupsModel.idParams,
      response: { 200: backupAnswers.restoreConnections },
      detail: { summary: "Where a backup can be restored besides its own server: each online agent that can open it, with its connection names" },
    })
    .post(
      "/:id/restore",
      async ({ user, organization, params, body, set }) => {
        set.status = 201;
        const actor = actorOf(user, organization);
        if (body.connection) return requestRestoreToConnection(ctx, organization.id, params.id, { ...body, connection: body.connection }, actor);
        return requestRestore(ctx, organization.id, params.id, body, undefined, actor);
      },
      {
        auth: true,
        params: backupsModel.idParams,
        body: backupsModel.restore,
        response: { 201: backupAnswers.restoreRequested },
        detail: { summary: "Restore a backup over its database, or as a copy into another (targetDatabase), optionally only some collections" },
      },
    );

/** A database restored to a moment: a base backup and its shipped oplog replayed up to it. */
const pointInTimeRestores = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/restores/point-in-time", detail: { tags: ["Restores"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/plan", ({ organization, query }) => describeRestorePlan(ctx, organization.id, query.databaseId, query.at), {
      auth: true,
      query: pointInTimeModel.planQuery,
      response: { 200: pointInTimeAnswers.plan },
      detail: { summary: "What a restore to a moment would use (base backup and slices), or 422 naming the moments that can be restored" },
    })
    .post(
      "/",
      async ({ user, organization, body, set }) => {
        set.status = 201;
        return requestPointInTimeRestore(ctx, organization.id, body, actorOf(user, organization));
      },
      {
        auth: true,
        body: pointInTimeModel.request,
        response: { 201: backupAnswers.restoreRequested },
        detail: { summary: "Restore a database to a moment (an ISO time to the second, or an oplog position t,i)" },
      },
    );
