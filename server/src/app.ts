import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import { PRODUCT_VERSION } from "@protocol/version";
import type { AppContext } from "./context";
import { httpBasics } from "./lib/http";
import { adminController } from "./modules/admin";
import { agentsController } from "./modules/agents";
import { authController } from "./modules/auth";
import { backupsController } from "./modules/backups";
import { downloadsController } from "./modules/downloads";
import { kbController } from "./modules/kb";
import { metricsController } from "./modules/metrics";
import { plansController } from "./modules/plans";
import { realtimeController } from "./modules/realtime";
import { settingsController } from "./modules/settings";
import { usersController } from "./modules/users";
import { webController } from "./modules/web";

/** The whole HTTP application for one context; tests call `createApp(ctx).handle(request)`. */
export function createApp(ctx: AppContext) {
  return new Elysia()
    .use(httpBasics(ctx.log, { https: ctx.config.publicUrl.startsWith("https://") }))
    .use(
      openapi({
        // The description as JSON; no bundled UI, whose CDN scripts our CSP (rightly) refuses.
        path: "/api/docs",
        specPath: "/api/docs",
        provider: null,
        documentation: {
          info: { title: "DBVault API", version: PRODUCT_VERSION, description: "Encrypted MongoDB backups: the web app's API." },
          components: { securitySchemes: { bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" } } },
        },
      }),
    )
    .use(authController(ctx))
    .use(usersController(ctx))
    .use(plansController(ctx))
    .use(settingsController(ctx))
    .use(agentsController(ctx))
    .use(backupsController(ctx))
    .use(realtimeController(ctx))
    .use(kbController(ctx))
    .use(adminController(ctx))
    .use(downloadsController(ctx))
    .use(metricsController(ctx, ctx.metrics))
    // Last: the single-page app answers every GET no API route took.
    .use(webController(ctx));
}

export type App = ReturnType<typeof createApp>;
