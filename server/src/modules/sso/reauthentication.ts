// "Confirm with SSO": a member re-authenticates through their organization's provider rather
// than with a password (a fresh sign-in there, prompt=login), for a token stamped as
// reauthentication's own. Here, in sso, so that reauthentication imports nothing of sso, and sso
// may call the users module that imports reauthentication.
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { badRequest } from "../../lib/errors";
import { requestOrigin } from "../../lib/request-origin";
import { authGuard } from "../auth/guard";
import { ssoConnectionOf } from "../organizations/sso-required";
import { reauthenticationAnswers, reauthenticationModel } from "../reauthentication/model";
import { stampedToken } from "../reauthentication/service";
import { beginRoundTrip, redeemReauthenticationCode } from "./sign-in";
import { stateCookie } from "./state-cookie";

export const NO_SSO_TO_CONFIRM_MESSAGE = "Your account does not sign in with SSO: confirm with your password instead.";
export const SSO_CONFIRMATION_USED_MESSAGE = "This confirmation was already used, has expired, or is not yours. Try “Confirm with SSO” again.";

export const ssoReauthenticationController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/auth", detail: { tags: ["Auth"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/reauthenticate/sso", async ({ user }) => ({ available: (await ssoConnectionOf(ctx.db, user)) !== null }), {
      auth: true,
      response: { 200: reauthenticationAnswers.ssoAvailable },
      detail: { summary: "Whether the signed-in user may confirm it is them through their organization's provider (“Confirm with SSO”)" },
    })
    .post(
      "/reauthenticate/sso/start",
      async ({ user, request, set }) => {
        const connection = await ssoConnectionOf(ctx.db, user);
        if (!connection) throw badRequest(NO_SSO_TO_CONFIRM_MESSAGE);
        const started = await beginRoundTrip(ctx, connection, {
          email: user.email,
          origin: requestOrigin(ctx.config, request),
          reauthenticatingUserId: user.id,
        });
        set.headers["set-cookie"] = stateCookie(started.state, ctx.config.publicUrl.startsWith("https://"));
        return { url: started.url };
      },
      {
        auth: true,
        response: { 200: reauthenticationAnswers.ssoStart },
        detail: {
          summary: "Confirm it is you through your organization's provider: its URL for a fresh sign-in (prompt=login, max_age=0)",
          description: "The provider sends the browser back to /sso with `#reauthentication=<code>` in the fragment, for POST /api/auth/reauthenticate/sso.",
        },
      },
    )
    .post(
      "/reauthenticate/sso",
      async ({ user, session, body }) => {
        const organizationId = await redeemReauthenticationCode(ctx, user.id, body.code);
        if (!organizationId) throw badRequest(SSO_CONFIRMATION_USED_MESSAGE);
        return stampedToken(ctx, user, session, organizationId);
      },
      {
        auth: true,
        body: reauthenticationModel.sso,
        response: { 200: reauthenticationAnswers.reauthenticated },
        detail: {
          summary: "Exchange an SSO confirmation's one-time code (once, within a minute) for a token stamped for 10 minutes",
          description:
            "The stamp counts inside the organization whose provider confirmed it only: never for the account's e-mail, password or two-factor sign-in.",
        },
      },
    );
