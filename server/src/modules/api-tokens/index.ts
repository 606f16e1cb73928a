import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { messageAnswer } from "../../lib/schema";
import { authGuard } from "../auth/guard";
import { actorOf } from "../audit/service";
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
      async ({ user, organization, body, set }) => {
        set.status = 201;
        return createApiToken(ctx, actorOf(user, organization), organization.id, body);
      },
      {
        auth: true,
        body: apiTokenModel.create,
        response: { 201: apiTokenAnswers.created },
        detail: { summary: "Create an API token (name, scopes read/backup/restore/admin, expiry in days); answers the token once" },
      },
    )
    .delete("/:id", ({ user, organization, params }) => revokeApiToken(ctx, actorOf(user, organization), organization.id, params.id), {
      auth: true,
      params: apiTokenModel.params,
      response: { 200: messageAnswer },
      detail: { summary: "Revoke an API token: the next request with it is refused" },
    });
