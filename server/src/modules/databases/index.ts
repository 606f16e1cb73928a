import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { databasesAnswers, databasesModel } from "./model";
import { setExcludedCollections } from "./exclusions";
import { setPointInTimeRecovery } from "./pitr-switch";
import { setDatabaseSchedule } from "./schedule-settings";
import { chooseDatabaseAgent, listDatabases, setDatabaseActive } from "./service";

/**
 * Settings → Databases: the list, which databases run, which agent runs each, and the
 * point-in-time switch, which sits under the path of the feature it turns on (/api/pitr).
 */
export const databasesController = (ctx: AppContext) =>
  new Elysia({ detail: { security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/api/settings/databases", ({ organization }) => listDatabases(ctx, organization.id), {
      auth: true,
      response: { 200: databasesAnswers.databases },
      detail: { tags: ["Settings"], summary: "List databases" },
    })
    .put("/api/settings/databases/:id", ({ organization, params, body }) => setDatabaseActive(ctx, organization, params.id, body.isActive), {
      auth: true,
      params: databasesModel.params,
      body: databasesModel.activate,
      response: { 200: databasesAnswers.databases },
      detail: { tags: ["Settings"], summary: "Enable or disable a database" },
    })
    .put("/api/settings/databases/:id/agent", ({ organization, params, body }) => chooseDatabaseAgent(ctx, organization.id, params.id, body.agentId), {
      auth: true,
      params: databasesModel.params,
      body: databasesModel.agent,
      response: { 200: databasesAnswers.databases },
      detail: { tags: ["Settings"], summary: "Choose which of the agents holding a database runs it" },
    })
    .put("/api/settings/databases/:id/schedule", ({ organization, params, body }) => setDatabaseSchedule(ctx, organization, params.id, body), {
      auth: true,
      params: databasesModel.params,
      body: databasesModel.schedule,
      response: { 200: databasesAnswers.databases },
      detail: { tags: ["Settings"], summary: "Set a database's own schedule: frequency, time of day and a UTC backup window (null: the account's)" },
    })
    .put(
      "/api/settings/databases/:id/exclusions",
      ({ organization, params, body }) => setExcludedCollections(ctx, organization.id, params.id, body.collections),
      {
        auth: true,
        params: databasesModel.params,
        body: databasesModel.exclusions,
        response: { 200: databasesAnswers.databases },
        detail: { tags: ["Settings"], summary: "Set the collections a database's backups leave out" },
      },
    )
    .put("/api/pitr/databases/:databaseId", ({ organization, params, body }) => setPointInTimeRecovery(ctx, organization, params.databaseId, body.enabled), {
      auth: true,
      params: databasesModel.pitrParams,
      body: databasesModel.pitrSwitch,
      response: { 200: databasesAnswers.databases },
      detail: { tags: ["Backups"], summary: "Switch point-in-time recovery (continuous oplog shipping) of a database on or off" },
    });
