import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { listPlans, toPlanView } from "../plans/service";
import { replicaStatus } from "../storage-replica/service";
import { adminAnswers, adminModel } from "./model";
import { updatePlanPitrWindow } from "./plans";
import { changeOrganizationPlan, listOrganizations } from "./organizations";
import { backupStats, deleteAgent, deleteUser, listUserAgents, listUsers, resetTwoFactor, setBan, updateUser } from "./service";

/** The admin console's API; every route requires the admin role. */
export const adminController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/admin", detail: { tags: ["Admin"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/users", () => listUsers(ctx), { admin: true, response: { 200: adminAnswers.users }, detail: { summary: "All users" } })
    .get("/organizations", () => listOrganizations(ctx), {
      admin: true,
      response: { 200: adminAnswers.organizations },
      detail: { summary: "All organizations, personal and teams, with their members and roles, plan and storage used" },
    })
    .put("/organizations/:id/plan", ({ params, body }) => changeOrganizationPlan(ctx, params.id, body.plan), {
      admin: true,
      params: adminModel.idParams,
      body: adminModel.organizationPlan,
      response: { 200: adminAnswers.organization },
      detail: { summary: "Move an organization to another plan; its settings and databases follow the plan's limits" },
    })
    .get("/stats/backups", () => backupStats(ctx), { admin: true, response: { 200: adminAnswers.backupStats }, detail: { summary: "Backup count and size" } })
    .get("/stats/storage", () => replicaStatus(ctx), {
      admin: true,
      response: { 200: adminAnswers.storageReplica },
      detail: { summary: "Replica storage (STORAGE_REPLICA_URL): each side's health, misses and missing objects; replica null without one" },
    })
    .get("/plans", async () => (await listPlans(ctx.db)).map(toPlanView), {
      admin: true,
      response: { 200: adminAnswers.plans },
      detail: { summary: "All plans" },
    })
    .put("/plans/:id", ({ params, body }) => updatePlanPitrWindow(ctx, params.id, body.pitrWindowHours), {
      admin: true,
      params: adminModel.idParams,
      body: adminModel.planUpdate,
      response: { 200: adminAnswers.plan },
      detail: { summary: "Change how far back point-in-time recovery reaches on a plan (0: not offered)" },
    })
    .get("/users/:id/agents", ({ params }) => listUserAgents(ctx, params.id), {
      admin: true,
      params: adminModel.idParams,
      response: { 200: adminAnswers.agents },
      detail: { summary: "A user's agents" },
    })
    .put("/users/:id", ({ user, params, body }) => updateUser(ctx, user, params.id, body), {
      admin: true,
      params: adminModel.idParams,
      body: adminModel.userUpdate,
      response: { 200: adminAnswers.user },
      detail: { summary: "Change a user's plan, role, status or e-mail" },
    })
    .put("/users/:id/ban", ({ user, params, body }) => setBan(ctx, user, params.id, body), {
      admin: true,
      params: adminModel.idParams,
      body: adminModel.ban,
      response: { 200: adminAnswers.ban },
      detail: { summary: "Ban or unban a user" },
    })
    .delete("/users/:id/two-factor", ({ user, params }) => resetTwoFactor(ctx, user, params.id), {
      admin: true,
      params: adminModel.idParams,
      response: { 200: adminAnswers.message },
      detail: { summary: "Turn a user's two-factor sign-in off (lost authenticator and recovery codes)" },
    })
    .delete("/agents/:id", ({ user, params }) => deleteAgent(ctx, user, params.id), {
      admin: true,
      params: adminModel.idParams,
      response: { 200: adminAnswers.message },
      detail: { summary: "Delete an agent" },
    })
    .delete("/users/:id", ({ user, params }) => deleteUser(ctx, user, params.id), {
      admin: true,
      params: adminModel.idParams,
      response: { 200: adminAnswers.message },
      detail: { summary: "Delete a user and their data" },
    });
