import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { clientIp } from "../../lib/client-ip";
import { AppError } from "../../lib/errors";
import { requestOrigin } from "../../lib/request-origin";
import { messageAnswer } from "../../lib/schema";
import { authGuard } from "../auth/guard";
import { actorOf } from "../audit/service";
import { readConnection, removeConnection, saveConnection } from "./connections";
import { proveDomainAsAdmin, proveDomainByDns } from "./domains";
import { ssoAnswers, ssoModel } from "./model";
import { exchangeSessionCode, finishSignIn, startSignIn } from "./sign-in";
import { readStateCookie, stateCookie } from "./state-cookie";

/** The web page that takes the browser back from the callback (web/src/app/routes/sso.tsx). */
export const SSO_RETURN_PAGE = "/sso";

const UNEXPECTED_MESSAGE = "Signing in with SSO failed on our side. Try again; if it keeps failing, sign in with your password.";

/** "Sign in with SSO": public, as signing in is. */
export const ssoSignInController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/auth/sso", detail: { tags: ["Auth"], security: [] } })
    .post(
      "/start",
      async ({ body, request, server, set }) => {
        const started = await startSignIn(ctx, { email: body.email, origin: requestOrigin(ctx.config, request), clientIp: clientIp(ctx, request, server) });
        set.headers["set-cookie"] = stateCookie(started.state, ctx.config.publicUrl.startsWith("https://"));
        return { url: started.url };
      },
      {
        body: ssoModel.start,
        response: { 200: ssoAnswers.start },
        detail: { summary: "Start signing in with SSO: the provider's URL for the organization of the e-mail's domain (404 when none)" },
      },
    )
    .get(
      "/callback",
      async ({ query, request, redirect, set }) => {
        const page = `${requestOrigin(ctx.config, request)}${SSO_RETURN_PAGE}`;
        try {
          const { code, reauthentication } = await finishSignIn(ctx, query, new URL(request.url), readStateCookie(request));
          // A sign-in's cookie stays for the exchange, which checks it; anything else spends it here.
          if (reauthentication) set.headers["set-cookie"] = stateCookie("", ctx.config.publicUrl.startsWith("https://"), 0);
          // In the fragment: browsers never send it to a server, so no access log holds it.
          return redirect(`${page}#${reauthentication ? "reauthentication" : "code"}=${encodeURIComponent(code)}`, 303);
        } catch (error) {
          set.headers["set-cookie"] = stateCookie("", ctx.config.publicUrl.startsWith("https://"), 0);
          if (!(error instanceof AppError)) ctx.log.error("sso callback failed", { error });
          const message = error instanceof AppError ? error.message : UNEXPECTED_MESSAGE;
          return redirect(`${page}#error=${encodeURIComponent(message)}`, 303);
        }
      },
      {
        query: ssoModel.callbackQuery,
        detail: {
          summary: "The provider's redirect back: checks it and sends the browser to /sso with a one-time code (or the error) in the fragment",
          responses: {
            303: {
              description: "To /sso, with #code=… (or #reauthentication=…, or #error=… saying why) in the fragment",
              headers: { Location: { schema: { type: "string" } } },
            },
          },
        },
      },
    )
    .post(
      "/exchange",
      async ({ body, request, set }) => {
        const session = await exchangeSessionCode(ctx, body.code, readStateCookie(request));
        set.headers["set-cookie"] = stateCookie("", ctx.config.publicUrl.startsWith("https://"), 0);
        return session;
      },
      {
        body: ssoModel.exchange,
        response: { 200: ssoAnswers.session },
        detail: {
          summary: "Exchange the callback's one-time code for a session (once, within a minute), from the browser that started the sign-in (its state cookie)",
        },
      },
    );

/** Settings → SSO: the current organization's connection, for its owners. */
export const ssoSettingsController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/organizations/current/sso", detail: { tags: ["Organizations"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/", ({ organization, request }) => readConnection(ctx, organization, requestOrigin(ctx.config, request)), {
      auth: true,
      response: { 200: ssoAnswers.connection },
      detail: { summary: "The organization's single sign-on (owners): issuer, client ID, domains, default role; never the client secret" },
    })
    .put("/", ({ user, organization, body, request }) => saveConnection(ctx, { user, organization }, body, requestOrigin(ctx.config, request)), {
      auth: true,
      body: ssoModel.save,
      response: { 200: ssoAnswers.connection },
      detail: { summary: "Save the organization's single sign-on (owners); the issuer is checked by discovery (400 not OIDC, 502 unreachable)" },
    })
    .post("/domains/verify", ({ user, organization, body }) => proveDomainByDns(ctx, organization.id, body.domain, actorOf(user, organization)), {
      auth: true,
      body: ssoModel.domain,
      response: { 200: ssoAnswers.verifiedDomains },
      detail: {
        summary: "Prove the organization owns an SSO domain (owners): DBVault looks up the TXT record `domainRecord` names; only proved domains sign anyone in",
      },
    })
    .delete("/", ({ user, organization }) => removeConnection(ctx, { user, organization }), {
      auth: true,
      response: { 200: messageAnswer },
      detail: { summary: "Remove the organization's single sign-on (owners): members sign in with passwords again" },
    });

/** The admin console: a server admin vouches for an organization's SSO domain (self-hosted servers whose DNS DBVault cannot see). */
export const ssoAdminController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/admin/organizations", detail: { tags: ["Admin"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .post("/:id/sso-domains", ({ user, organization, params, body }) => proveDomainAsAdmin(ctx, params.id, body.domain, actorOf(user, organization)), {
      admin: true,
      params: ssoModel.adminDomainParams,
      body: ssoModel.domain,
      response: { 200: ssoAnswers.verifiedDomains },
      detail: { summary: "Mark an organization's SSO domain as proved (server admins), where a DNS record cannot be checked" },
    });
