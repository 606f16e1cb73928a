import { Elysia, t } from "elysia";
import type { AppContext } from "../../context";
import { checkBodyAsSent } from "../../lib/strict-body";
import { onlyJsonObjectOf } from "../../lib/json-body";
import { authGuard } from "../auth/guard";
import { actorOf } from "../audit/service";
import { passwordField } from "../auth/model";
import { givenCode } from "../reauthentication/model";
import { requireRecentReauthentication } from "../reauthentication/service";
import { previewRetention } from "../retention/service";
import { settingsAnswers, settingsModel } from "./model";
import { getSettings, regenerateApiKey, sendTestNotification, updateSettings } from "./service";

const settingsBody = onlyJsonObjectOf(Object.keys(settingsModel.update.properties));
const checkSettingsAsSent = checkBodyAsSent(settingsModel.update);

export const settingsController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/settings", detail: { tags: ["Settings"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/", ({ organization }) => getSettings(ctx, organization.id), {
      auth: true,
      response: { 200: settingsAnswers.settings },
      detail: { summary: "Schedule, retention, notifications" },
    })
    .put("/", ({ user, organization, body }) => updateSettings(ctx, organization, body, actorOf(user, organization)), {
      auth: true,
      // Unknown fields are refused (400 naming them), as on PUT /api/user/update; named ones are checked as sent.
      transform: (call: { request: Request; body: unknown }) => {
        checkSettingsAsSent(call);
        settingsBody.transform(call);
      },
      beforeHandle: settingsBody.beforeHandle,
      body: settingsModel.update,
      response: { 200: settingsAnswers.settings },
      detail: { summary: "Save settings (frequency as a word, retention in hours)" },
    })
    .get("/retention-preview", ({ organization, query }) => previewRetention(ctx, organization.id, query), {
      auth: true,
      query: settingsModel.retentionPreviewQuery,
      response: { 200: settingsAnswers.retentionPreview },
      detail: { summary: "Which completed backups a retention policy keeps (the saved one, changed by ?mode, ?retention, ?daily, ?weekly, ?monthly)" },
    })
    .post(
      "/regenerate-api-key",
      async ({ user, organization, session, body }) => {
        await requireRecentReauthentication(ctx, user, session, body ?? {});
        return regenerateApiKey(ctx, organization.id, actorOf(user, organization));
      },
      {
        auth: true,
        // The password (and code) here, or a session re-authenticated in the last 10 minutes.
        body: t.Optional(t.Object({ password: t.Optional(passwordField), code: givenCode })),
        response: { 200: settingsAnswers.apiKey },
        detail: { summary: "Replace the API key (`password` and `code`, or a token from POST /api/auth/reauthenticate)" },
      },
    )
    .post("/test-notification", ({ user, organization }) => sendTestNotification(ctx, user, organization.id), {
      auth: true,
      response: { 200: settingsAnswers.testNotification },
      detail: { summary: "Send a test e-mail" },
    });
