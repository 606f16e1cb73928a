import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { listAuditActions, listAuditLogs } from "../audit/service";
import { authGuard } from "../auth/guard";
import { userAnswers, userModel } from "./model";
import { changeOwnPlan, changePassword, getUserPlan, toProfile, updateProfile } from "./service";

export const usersController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/user", detail: { tags: ["User"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/profile", ({ user }) => toProfile(ctx, user), { auth: true, response: { 200: userAnswers.profile }, detail: { summary: "The signed-in user's profile" } })
    .get("/plan", ({ user }) => getUserPlan(ctx, user), { auth: true, response: { 200: userAnswers.plan }, detail: { summary: "The user's plan and its limits" } })
    .put("/plan", ({ user, body }) => changeOwnPlan(ctx, user, body.plan), {
      auth: true,
      body: userModel.plan,
      response: { 200: userAnswers.planChanged },
      detail: { summary: "Switch to another free plan" },
    })
    .put("/update", ({ user, body }) => updateProfile(ctx, user, body), {
      auth: true,
      body: userModel.update,
      response: { 200: userAnswers.profileUpdated },
      detail: { summary: "Update name and e-mail" },
    })
    .put("/password", ({ user, body }) => changePassword(ctx, user, body), {
      auth: true,
      body: userModel.password,
      response: { 200: userAnswers.passwordChanged },
      detail: { summary: "Change password (ends other sessions)" },
    })
    .get(
      "/audit-logs",
      ({ user, query }) =>
        listAuditLogs(ctx.db, {
          userId: user.id,
          page: query.page ?? 1,
          action: query.action && query.action !== "all" ? query.action : null,
        }),
      { auth: true, query: userModel.auditQuery, response: { 200: userAnswers.auditLogs }, detail: { summary: "The user's audit log, 20 per page" } },
    )
    .get("/audit-actions", () => [...listAuditActions()], { auth: true, response: { 200: userAnswers.auditActions }, detail: { summary: "Audit action names" } });
