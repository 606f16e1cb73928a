import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { actorOf } from "../audit/service";
import { readInstallProgress } from "../downloads/install-progress";
import { checkServiceHealth } from "./health";
import { agentAnswer, agentAnswers, agentsModel } from "./model";
import { requireRecentReauthentication } from "../reauthentication/service";
import { removeAgent } from "./remove-agent";
import { approveSetupCode } from "./setup-approval";
import { listAgents, manageAgent, renameAgent } from "./service";

/**
 * The user-facing agent routes: system status, manage, rename and remove. What agents themselves
 * call is modules/agent-link.
 */
export const agentsController = (ctx: AppContext) =>
  new Elysia({ detail: { tags: ["Agents"] } })
    .use(authGuard(ctx))
    .get(
      "/api/agents/server-status",
      async ({ set }) => {
        const health = await checkServiceHealth(ctx);
        if (!health.ok) set.status = 503;
        return health;
      },
      { response: { 200: agentAnswers.health, 503: agentAnswers.health }, detail: { summary: "Backup service health (public)" } },
    )
    .get(
      "/api/settings/system-status",
      async ({ user, organization }) => ({
        agents: await listAgents(ctx, organization.id),
        backupService: (await checkServiceHealth(ctx)).ok,
        install: await readInstallProgress(ctx, user.id),
      }),
      { auth: true, response: { 200: agentAnswers.systemStatus }, detail: { summary: "The user's agents and the backup service state" } },
    )
    .post("/api/agents/manage/:agentId", ({ organization, params, body }) => manageAgent(ctx, organization.id, params.agentId, body.action), {
      auth: true,
      params: agentsModel.manageParams,
      body: agentsModel.manage,
      response: { 200: agentAnswers.message },
      detail: { summary: "Restart, update-check or reset an agent" },
    })
    .patch(
      "/api/agents/:agentId",
      ({ user, organization, params, body }) => renameAgent(ctx, organization.id, params.agentId, body.name, actorOf(user, organization)),
      {
        auth: true,
        params: agentsModel.manageParams,
        body: agentsModel.rename,
        response: { 200: agentAnswer },
        detail: { summary: "Rename an agent (Settings → Agents)" },
      },
    )
    .post(
      "/api/agents/:agentId/setup-approval",
      async ({ user, organization, session, params, body }) => {
        await requireRecentReauthentication(ctx, user, session, body);
        return approveSetupCode(ctx, organization.id, params.agentId, body.setupCode, actorOf(user, organization));
      },
      {
        auth: true,
        params: agentsModel.manageParams,
        // The password (and code) here, or a session re-authenticated in the last 10 minutes.
        body: agentsModel.setupApproval,
        response: { 200: agentAnswers.message },
        detail: {
          summary: "Approve the code `dbvault-agent setup --force` showed, so that machine may register the agent again (sessions only, re-authenticated)",
        },
      },
    )
    .delete(
      "/api/agents/:agentId",
      ({ user, organization, params }) =>
        removeAgent(ctx, params.agentId, {
          // The organization's own agents only, admins included: an admin's removal of any agent
          // is DELETE /api/admin/agents/{id}, behind the admin guard (REQUIRE_ADMIN_2FA).
          ownerId: organization.id,
          removedBy: user.id,
          actor: actorOf(user, organization),
        }),
      {
        auth: true,
        params: agentsModel.manageParams,
        response: { 200: agentAnswers.message },
        detail: { summary: "Remove an agent: revokes its token and stops it; its backups are kept" },
      },
    );
