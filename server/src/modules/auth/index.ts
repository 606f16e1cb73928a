import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { clientIp } from "../../lib/client-ip";
import { authModel } from "./model";
import { authGuard } from "./guard";
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
      { body: authModel.register, detail: { summary: "Create an account" } },
    )
    .post("/login", ({ body, request, server }) => login(ctx, { ...body, clientIp: clientIp(ctx, request, server) }), {
      body: authModel.login,
      detail: { summary: "Sign in" },
    })
    .post(
      "/forgot-password",
      ({ body, request, server }) => forgotPassword(ctx, { ...body, clientIp: clientIp(ctx, request, server) }),
      { body: authModel.forgotPassword, detail: { summary: "Mail a password reset link" } },
    )
    .get("/reset-password/:token", ({ params }) => checkResetToken(ctx, params.token), {
      params: authModel.resetTokenParams,
      detail: { summary: "Check a reset token" },
    })
    .post("/reset-password/:token", ({ params, body }) => resetPassword(ctx, { token: params.token, ...body }), {
      params: authModel.resetTokenParams,
      body: authModel.resetPassword,
      detail: { summary: "Set a new password with a reset token" },
    })
    .use(authGuard(ctx))
    .post("/logout", ({ user }) => logout(ctx, user.id), {
      auth: true,
      detail: { summary: "Sign out everywhere: every token issued so far stops working" },
    });
