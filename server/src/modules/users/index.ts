import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { listAuditActions, listAuditLogs } from "../audit/service";
import { onlyJsonObjectOf } from "../../lib/json-body";
import { authGuard } from "../auth/guard";
import { requireRecentReauthentication } from "../reauthentication/service";
import { userAnswers, userModel } from "./model";
import { changeOwnPlan, changePassword, getUserPlan, toProfile, updateProfile } from "./service";

export const usersController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/user", detail: { tags: ["User"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/profile", ({ user, organization }) => toProfile(ctx, user, organization), {
      auth: true,
      response: { 200: userAnswers.profile },
      detail: { summary: "The signed-in user's profile" },
    })
    .get("/plan", ({ organization }) => getUserPlan(ctx, organization), {
      auth: true,
      response: { 200: userAnswers.plan },
      detail: { summary: "The user's plan and its limits" },
    })
    .put("/plan", ({ user, organization, body }) => changeOwnPlan(ctx, user, organization, body.plan), {
      auth: true,
      body: userModel.plan,
      response: { 200: userAnswers.planChanged },
      detail: { summary: "Switch to another free plan" },
    })
    .put("/update", ({ user, organization, session, body }) => updateProfile(ctx, user, organization, session, body), {
      auth: true,
      ...onlyJsonObjectOf(Object.keys(userModel.update.properties)),
      body: userModel.update,
      response: { 200: userAnswers.profileUpdated },
      detail: {
        summary: "Update the name, or ask to change the e-mail",
        description:
          "A new e-mail needs `currentPassword` (and `code` when two-factor sign-in is on), unless the session re-authenticated in the last 10 minutes (by password or through SSO). It takes effect once confirmed by the link mailed to it; the old address gets a notice with a link that undoes the change for 7 days.",
      },
    })
    .put(
      "/password",
      async ({ user, session, body }) => {
        await requireRecentReauthentication(ctx, user, session, { password: body.currentPassword, code: body.code });
        return changePassword(ctx, user, body.newPassword, { rotateApiKey: body.rotateApiKey ?? true, revokeApiTokens: body.revokeApiTokens ?? false });
      },
      {
        auth: true,
        body: userModel.password,
        response: { 200: userAnswers.passwordChanged },
        detail: {
          summary: "Change password (ends other sessions); `code` too when two-factor sign-in is on",
          description:
            "Needs `currentPassword` (and `code`) unless the session re-authenticated in the last 10 minutes (by password or through SSO). Also replaces the API key unless `rotateApiKey` is false; the answer then carries the new key. Agents already set up keep running (they authenticate with their own credentials).",
        },
      },
    )
    .get(
      "/audit-logs",
      ({ organization, query }) =>
        listAuditLogs(ctx.db, {
          organizationId: organization.id,
          page: query.page ?? 1,
          action: query.action && query.action !== "all" ? query.action : null,
        }),
      {
        auth: true,
        query: userModel.auditQuery,
        response: { 200: userAnswers.auditLogs },
        detail: { summary: "The organization's audit log, 20 per page, each entry with who did it and their role" },
      },
    )
    .get("/audit-actions", () => [...listAuditActions()], {
      auth: true,
      response: { 200: userAnswers.auditActions },
      detail: { summary: "Audit action names" },
    });
