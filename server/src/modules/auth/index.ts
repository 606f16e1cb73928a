import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { clientIp } from "../../lib/client-ip";
import { authAnswers, authModel } from "./model";
import { AppError } from "../../lib/errors";
import { authGuard } from "./guard";
import { SSO_SESSION_ACCOUNT_MESSAGE } from "./session-scope";
import { checkResetToken, forgotPassword, login, logout, register, resetPassword } from "./service";

export const authController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/auth", detail: { tags: ["Auth"] } })
    .post(
      "/register",
      async ({ body, set, request, server }) => {
        const created = await register(ctx, { ...body, clientIp: clientIp(ctx, request, server) });
        set.status = 201;
        return created;
      },
      { body: authModel.register, response: { 201: authAnswers.session }, detail: { summary: "Create an account" } },
    )
    .post("/login", ({ body, request, server }) => login(ctx, { ...body, clientIp: clientIp(ctx, request, server) }), {
      body: authModel.login,
      response: { 200: authAnswers.session },
      detail: { summary: "Sign in (with `code` when two-factor sign-in is on: 401 TWO_FACTOR_REQUIRED without it)" },
    })
    .post("/forgot-password", ({ body, request, server }) => forgotPassword(ctx, { ...body, clientIp: clientIp(ctx, request, server) }), {
      body: authModel.forgotPassword,
      response: { 200: authAnswers.message },
      detail: { summary: "Mail a password reset link" },
    })
    .get("/reset-password/:token", ({ params }) => checkResetToken(ctx, params.token), {
      params: authModel.resetTokenParams,
      response: { 200: authAnswers.resetToken },
      detail: { summary: "Check a reset token" },
    })
    .post(
      "/reset-password/:token",
      ({ params, body }) => resetPassword(ctx, { token: params.token, password: body.password, revokeApiTokens: body.revokeApiTokens ?? true }),
      {
        params: authModel.resetTokenParams,
        body: authModel.resetPassword,
        response: { 200: authAnswers.message },
        detail: {
          summary: "Set a new password with a reset token",
          description:
            "Ends every session and, unless `revokeApiTokens` is false, revokes every API token. An account single sign-on created stops signing in through it: the password makes it the person's own.",
        },
      },
    )
    .use(authGuard(ctx))
    .post(
      "/logout",
      ({ user, session, body }) => {
        // Tokens of every organization: not for a session single sign-on scoped to one.
        if (session.organizationScope && body?.revokeApiTokens) throw new AppError(403, "SSO_SESSION", SSO_SESSION_ACCOUNT_MESSAGE);
        return logout(ctx, user, { revokeApiTokens: body?.revokeApiTokens ?? false });
      },
      {
        body: authModel.logout,
        // The banned page's 'Sign Out' signs out too (403 here left the token working).
        bannedToo: true,
        response: { 200: authAnswers.message },
        detail: { summary: "Sign out everywhere: every session token issued so far stops working; with `revokeApiTokens`, every API token too" },
      },
    );
