import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { messageAnswer } from "../../lib/schema";
import { authGuard } from "../auth/guard";
import { apiTokenAnswers, apiTokenModel } from "./model";
import { createApiToken, listApiTokens, revokeApiToken } from "./service";

/**
 * Profile → Security → API tokens: the user's tokens for scripts and CI jobs. Only a session
 * manages them (lib/api-security.ts lists no scope for these routes), so a token cannot make
 * itself a wider one.
 */
export const apiTokensController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/user/api-tokens", detail: { tags: ["User"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/", ({ user }) => listApiTokens(ctx, user.id), {
      auth: true,
      response: { 200: apiTokenAnswers.list },
      detail: { summary: "The user's API tokens with their scopes, expiry and last use (never the tokens themselves)" },
    })
    .post(
      "/",
      async ({ user, body, set }) => {
        set.status = 201;
        return createApiToken(ctx, user.id, body);
      },
      {
        auth: true,
        body: apiTokenModel.create,
        response: { 201: apiTokenAnswers.created },
        detail: { summary: "Create an API token (name, scopes read/backup/restore/admin, expiry in days); answers the token once" },
      },
    )
    .delete("/:id", ({ user, params }) => revokeApiToken(ctx, user.id, params.id), {
      auth: true,
      params: apiTokenModel.params,
      response: { 200: messageAnswer },
      detail: { summary: "Revoke an API token: the next request with it is refused" },
    });
