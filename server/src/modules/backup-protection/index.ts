import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { requireRecentReauthentication } from "../reauthentication/service";
import { protectionAnswers, protectionModel } from "./model";
import { cancelProtectionOff, getProtection, requestProtectionOff, turnProtectionOn } from "./service";

/** "Protect backups" of the current organization (its owners' to switch): Settings → Security. */
export const backupProtectionController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/settings/backup-protection", detail: { tags: ["Settings"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/", ({ organization }) => getProtection(ctx, organization.id), {
      auth: true,
      response: { 200: protectionAnswers.protection },
      detail: { summary: "Whether Protect backups is on, off, or turning off (and when)" },
    })
    .post(
      "/",
      async ({ user, organization, session, body }) => {
        await requireRecentReauthentication(ctx, user, session, body);
        return turnProtectionOn(ctx, user, organization);
      },
      {
        auth: true,
        body: protectionModel.change,
        response: { 200: protectionAnswers.changed },
        detail: {
          summary: "Turn Protect backups on (two-factor sign-in must be on; password and code, or a token from POST /api/auth/reauthenticate)",
          description:
            "Once on, no backup can be deleted before its retention lets it go, a backup kept forever cannot be un-kept, retention cannot be shortened and the account cannot be deleted: 409 BACKUPS_PROTECTED with `possibleFrom`.",
        },
      },
    )
    .post(
      "/turn-off",
      async ({ user, organization, session, body }) => {
        await requireRecentReauthentication(ctx, user, session, body);
        return requestProtectionOff(ctx, user, organization);
      },
      {
        auth: true,
        body: protectionModel.change,
        response: { 200: protectionAnswers.changed },
        detail: {
          summary: "Ask to turn Protect backups off: it takes effect after 7 days, announced at once by e-mail and the backup_protection.off_requested webhook",
        },
      },
    )
    .delete("/turn-off", ({ user, organization }) => cancelProtectionOff(ctx, user, organization), {
      auth: true,
      response: { 200: protectionAnswers.changed },
      detail: { summary: "Cancel a waiting turn-off: Protect backups stays on" },
    });
