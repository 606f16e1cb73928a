import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { messageAnswer } from "../../lib/schema";
import { authGuard } from "../auth/guard";
import { actorOf } from "../audit/service";
import { requireRecentReauthentication } from "../reauthentication/service";
import { apiTokenAnswers, apiTokenModel } from "./model";
import { createApiToken, listApiTokens, revokeApiToken } from "./service";

/**
 * Profile → Security → API tokens: the user's tokens for scripts and CI jobs, each acting in the
 * organization it was made in (the current one), never beyond the creator's role there. Only a session
 * manages them (lib/api-security.ts lists no scope for these routes), so a token cannot make
 * itself a wider one.
 */
export const apiTokensController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/user/api-tokens", detail: { tags: ["User"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/", ({ user, organization }) => listApiTokens(ctx, user.id, organization.id), {
      auth: true,
      response: { 200: apiTokenAnswers.list },
      detail: { summary: "The user's API tokens with their scopes, expiry and last use (never the tokens themselves)" },
    })
    .post(
      "/",
      async ({ user, organization, session, body, set }) => {
        // A token outlives the session that makes it (up to a year): a stolen session must not
        // turn into one, so this asks for the password (and code) as other security changes do.
        const { password, code, ...input } = body;
        await requireRecentReauthentication(ctx, user, session, { password, code });
        set.status = 201;
        return createApiToken(ctx, actorOf(user, organization), organization.id, input);
      },
      {
        auth: true,
        body: apiTokenModel.create,
        response: { 201: apiTokenAnswers.created },
        detail: {
          summary: "Create an API token (name, scopes read/backup/restore/admin, expiry in days); answers the token once",
          description:
            "Needs `password` (and `code` when two-factor sign-in is on) in the body, or a session re-authenticated in the last 10 minutes (POST /api/auth/reauthenticate; through SSO, in the organization of that provider only); else 403 REAUTHENTICATION_REQUIRED.",
        },
      },
    )
    .delete("/:id", ({ user, organization, params }) => revokeApiToken(ctx, actorOf(user, organization), organization.id, params.id), {
      auth: true,
      params: apiTokenModel.params,
      response: { 200: messageAnswer },
      detail: { summary: "Revoke an API token: the next request with it is refused" },
    });
