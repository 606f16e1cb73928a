import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { actorOf } from "../audit/service";
import { downloadBackupResponse } from "../stored-files/download";
import { copiesOfBackups } from "../copies/service";
import { backupAnswers, backupsModel, encryptedFileAnswer } from "./model";
import { deleteBackup } from "./deletion";
import { findOwnBackup, listBackups, resolveAnomaly, summarizeBackups, triggerBackup } from "./service";
import { setBackupKept, setBackupLabel } from "./keep";
import { toBackupView } from "./views";

export const backupsController = (ctx: AppContext) => {
  return new Elysia({ prefix: "/api/backups", detail: { tags: ["Backups"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/", ({ organization, query }) => listBackups(ctx, organization.id, query), {
      auth: true,
      query: backupsModel.listQuery,
      response: { 200: backupAnswers.list },
      detail: {
        summary: "The user's backups, newest first: 100 a page (?limit up to 500, ?page); totals in /summary",
        description:
          "Filters, all optional and combined: `databaseName` (exact), `search` (part of the database's name), `status`, `from` and `to` (ISO 8601, on the creation time; a bare `to` date includes that day), `verified` (true: read back and found whole), `pitrBase` (true: a completed point-in-time consistent backup whose verification did not fail, where a restore to a moment can start). A page shorter than `limit` is the last. Bad values answer 400 with a message.",
      },
    })
    .get("/summary", ({ organization }) => summarizeBackups(ctx, organization.id), {
      auth: true,
      response: { 200: backupAnswers.summary },
      detail: { summary: "Counts for the dashboard: total, completed, failed, success rate, last backup time" },
    })
    .post(
      "/",
      async ({ user, organization, body, set }) => {
        set.status = 201;
        return triggerBackup(ctx, organization, body.databaseName, actorOf(user, organization));
      },
      {
        auth: true,
        body: backupsModel.trigger,
        response: { 201: backupAnswers.backup },
        detail: { summary: "Back a database up now (429 before the plan allows)" },
      },
    )
    .get(
      "/:id",
      async ({ organization, params }) => {
        const backup = await findOwnBackup(ctx, organization.id, params.id);
        return toBackupView(backup, (await copiesOfBackups(ctx, [backup.id])).get(backup.id));
      },
      {
        auth: true,
        params: backupsModel.idParams,
        response: { 200: backupAnswers.backup },
        detail: { summary: "One backup's status" },
      },
    )
    .delete(
      "/:id",
      async ({ user, organization, params }) => deleteBackup(ctx, await findOwnBackup(ctx, organization.id, params.id), "manual", actorOf(user, organization)),
      {
        auth: true,
        params: backupsModel.idParams,
        response: { 200: backupAnswers.message },
        detail: { summary: "Delete a backup and its file" },
      },
    )
    .put(
      "/:id/keep",
      async ({ user, organization, params, body }) =>
        setBackupKept(ctx, await findOwnBackup(ctx, organization.id, params.id), body.kept, actorOf(user, organization)),
      {
        auth: true,
        params: backupsModel.idParams,
        body: backupsModel.keep,
        response: { 200: backupAnswers.backup },
        detail: {
          summary: "Keep a completed backup forever ({kept: true}) or let retention decide about it again ({kept: false})",
          description:
            "A kept backup is never deleted by retention and still counts in the storage quota; deleting it asks to un-keep it first (409). Un-keeping is refused while Protect backups is on (409 BACKUPS_PROTECTED).",
        },
      },
    )
    .put(
      "/:id/label",
      async ({ user, organization, params, body }) =>
        setBackupLabel(ctx, await findOwnBackup(ctx, organization.id, params.id), body.label, actorOf(user, organization)),
      {
        auth: true,
        params: backupsModel.idParams,
        body: backupsModel.label,
        response: { 200: backupAnswers.backup },
        detail: { summary: 'Label a backup ("before migration 42"): one line, up to 100 characters; null or blank removes it' },
      },
    )
    .post(
      "/:id/anomaly/resolve",
      async ({ user, organization, params }) => resolveAnomaly(ctx, await findOwnBackup(ctx, organization.id, params.id), actorOf(user, organization)),
      {
        auth: true,
        params: backupsModel.idParams,
        response: { 200: backupAnswers.message },
        detail: { summary: "Mark a backup's anomaly (and its database's earlier ones) as expected: retention stops holding the last good backup" },
      },
    )
    .get(
      "/:id/download",
      async ({ organization, params, request }) =>
        downloadBackupResponse(ctx, await findOwnBackup(ctx, organization.id, params.id), request.headers.get("range")),
      { auth: true, params: backupsModel.idParams, detail: { summary: "Download the encrypted file (ranges supported)", responses: encryptedFileAnswer } },
    );
};
