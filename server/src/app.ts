import { type AnyElysia, Elysia } from "elysia";
import type { AppContext } from "./context";
import { describeApi } from "./lib/api-document";
import { httpBasics } from "./lib/http";
import { adminController } from "./modules/admin";
import { agentLinkController } from "./modules/agent-link";
import { agentsController } from "./modules/agents";
import { apiTokensController } from "./modules/api-tokens";
import { authController } from "./modules/auth";
import { backupProtectionController } from "./modules/backup-protection";
import { backupsController } from "./modules/backups";
import { copiesController } from "./modules/copies";
import { downloadsController } from "./modules/downloads";
import { emailChangeController } from "./modules/email-change";
import { drillsController } from "./modules/drills";
import { kbController } from "./modules/kb";
import { metricsController } from "./modules/metrics";
import { invitationsController, organizationsController } from "./modules/teams";
import { pitrController } from "./modules/pitr";
import { plansController } from "./modules/plans";
import { realtimeController } from "./modules/realtime";
import { restoresController } from "./modules/restores";
import { reauthenticationController } from "./modules/reauthentication";
import { ssoReauthenticationController } from "./modules/sso/reauthentication";
import { settingsController } from "./modules/settings";
import { databasesController } from "./modules/databases";
import { ssoAdminController, ssoSettingsController, ssoSignInController } from "./modules/sso";
import { twoFactorController } from "./modules/two-factor";
import { usersController } from "./modules/users";
import { auditExportController } from "./modules/users/audit-export-routes";
import { verificationController } from "./modules/verification";
import { webController } from "./modules/web";
import { webhooksController } from "./modules/webhooks";
import { subscribeToEvents } from "./subscriptions";

// The controllers in two groups: one chain of them all is deeper than TypeScript instantiates
// (TS2589) once the Eden client reads its type.
/** Who users are and what they may do: accounts, organizations, sign-in, plans. */
function accountRoutes(ctx: AppContext) {
  return new Elysia()
    .use(authController(ctx))
    .use(ssoSignInController(ctx))
    .use(twoFactorController(ctx))
    .use(reauthenticationController(ctx))
    .use(ssoReauthenticationController(ctx))
    .use(emailChangeController(ctx))
    .use(usersController(ctx))
    .use(auditExportController(ctx))
    .use(apiTokensController(ctx))
    .use(organizationsController(ctx))
    .use(invitationsController(ctx))
    .use(ssoSettingsController(ctx))
    .use(ssoAdminController(ctx))
    .use(plansController(ctx));
}

/** What is backed up and by whom: databases, agents, backups, restores, point in time. */
function backupRoutes(ctx: AppContext) {
  return new Elysia()
    .use(settingsController(ctx))
    .use(databasesController(ctx))
    .use(backupProtectionController(ctx))
    .use(webhooksController(ctx))
    .use(agentLinkController(ctx))
    .use(agentsController(ctx))
    .use(backupsController(ctx))
    .use(copiesController(ctx))
    .use(verificationController(ctx))
    .use(restoresController(ctx))
    .use(drillsController(ctx))
    .use(pitrController(ctx))
    .use(realtimeController(ctx))
    .use(kbController(ctx))
    .use(adminController(ctx))
    .use(downloadsController(ctx))
    .use(metricsController(ctx, ctx.metrics));
}

/** The whole HTTP application for one context; tests call `createApp(ctx).handle(request)`. */
export function createApp(ctx: AppContext) {
  let apiDocument: ReturnType<typeof describeApi> | null = null;
  const built: { app?: AnyElysia } = {};
  subscribeToEvents(ctx);
  const app = new Elysia()
    .use(httpBasics(ctx.log, { https: ctx.config.publicUrl.startsWith("https://") }))
    // The description as JSON (lib/api-document.ts); no bundled UI, whose CDN scripts our CSP
    // (rightly) refuses. Built once, on first request, when every route exists.
    .get("/api/docs", () => (apiDocument ??= describeApi(built.app!)), { detail: { hide: true } })
    .use(accountRoutes(ctx))
    .use(backupRoutes(ctx))
    // Last: the single-page app answers every GET no API route took.
    .use(webController(ctx));
  built.app = app;
  return app;
}

export type App = ReturnType<typeof createApp>;
