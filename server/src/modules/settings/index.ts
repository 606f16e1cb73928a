import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { previewRetention } from "../retention/service";
import { settingsAnswers, settingsModel } from "./model";
import {
  chooseDatabaseAgent,
  getSettings,
  listDatabases,
  regenerateApiKey,
  sendTestNotification,
  setDatabaseActive,
  updateSettings,
} from "./service";

export const settingsController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/settings", detail: { tags: ["Settings"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/", ({ user }) => getSettings(ctx, user.id), {
      auth: true,
      response: { 200: settingsAnswers.settings },
      detail: { summary: "Schedule, retention, notifications" },
    })
    .put("/", ({ user, body }) => updateSettings(ctx, user, body), {
      auth: true,
      body: settingsModel.update,
      response: { 200: settingsAnswers.settings },
      detail: { summary: "Save settings (frequency as a word, retention in hours)" },
    })
    .get("/retention-preview", ({ user, query }) => previewRetention(ctx, user.id, query), {
      auth: true,
      query: settingsModel.retentionPreviewQuery,
      response: { 200: settingsAnswers.retentionPreview },
      detail: { summary: "Which completed backups a retention policy keeps (the saved one, changed by ?mode, ?retention, ?daily, ?weekly, ?monthly)" },
    })
    .get("/databases", ({ user }) => listDatabases(ctx, user.id), {
      auth: true,
      response: { 200: settingsAnswers.databases },
      detail: { summary: "List databases" },
    })
    .put("/databases/:id", ({ user, params, body }) => setDatabaseActive(ctx, user, params.id, body.isActive), {
      auth: true,
      params: settingsModel.databaseParams,
      body: settingsModel.databaseUpdate,
      response: { 200: settingsAnswers.databases },
      detail: { summary: "Enable or disable a database" },
    })
    .put("/databases/:id/agent", ({ user, params, body }) => chooseDatabaseAgent(ctx, user.id, params.id, body.agentId), {
      auth: true,
      params: settingsModel.databaseParams,
      body: settingsModel.databaseAgent,
      response: { 200: settingsAnswers.databases },
      detail: { summary: "Choose which of the agents holding a database runs it" },
    })
    .post("/regenerate-api-key", ({ user }) => regenerateApiKey(ctx, user.id), {
      auth: true,
      response: { 200: settingsAnswers.apiKey },
      detail: { summary: "Replace the API key" },
    })
    .post("/test-notification", ({ user }) => sendTestNotification(ctx, user), {
      auth: true,
      response: { 200: settingsAnswers.testNotification },
      detail: { summary: "Send a test e-mail" },
    });
