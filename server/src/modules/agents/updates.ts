// The last "Check for Updates" of each agent, as the web app shows it: requested by the user,
// then each step the agent reports, and `updated` only once the agent came back as the new version.
import { and, eq } from "drizzle-orm";
import { agents, type agentUpdateStatuses } from "@db/schema";
import type { UpdateStatus } from "@protocol/agent-protocol";
import type { DbOrTx } from "@db/client";
import type { AppContext } from "../../context";
import { followSubject } from "../agent-jobs/service";

type AgentUpdateStatus = (typeof agentUpdateStatuses)[number];

/** What each status says of the update's job in the ledger (agent-jobs/): started, or settled. */
const JOB_STATUS: Partial<Record<AgentUpdateStatus, "in-progress" | "completed" | "failed">> = {
  checking: "in-progress",
  installing: "in-progress",
  restarting: "in-progress",
  "up-to-date": "completed",
  updated: "completed",
  failed: "failed",
};

async function setUpdate(ctx: AppContext, agentId: string, status: AgentUpdateStatus, message: string, version: string | null, db: DbOrTx = ctx.db) {
  await db
    .update(agents)
    .set({ updateStatus: status, updateMessage: message.slice(0, 2000), updateVersion: version, updateAt: ctx.now() })
    .where(eq(agents.id, agentId));
  const job = JOB_STATUS[status];
  if (job) await followSubject(ctx, db, "update", agentId, job);
}

/** The user pressed Check for Updates and its job was queued (in the caller's transaction). */
export const recordUpdateRequested = (ctx: AppContext, agentId: string, db: DbOrTx) =>
  setUpdate(ctx, agentId, "requested", "Update check sent to the agent", null, db);

/** A step the agent reported (`update.status`). */
export async function recordUpdateStatus(ctx: AppContext, agentId: string, status: UpdateStatus, message: string, version: string | undefined) {
  await setUpdate(ctx, agentId, status, message, version ?? null);
  ctx.log.info("agent update", { agentId, status, version, message });
}

/**
 * An agent of a version before self-updates answers the update command with a command.result:
 * recorded as failed, with its own words, since it cannot update itself.
 */
export const recordUpdateUnsupported = (ctx: AppContext, agentId: string, message: string) =>
  setUpdate(ctx, agentId, "failed", `This agent cannot update itself: ${message}`, null);

/**
 * An agent said hello: if it was restarting into an update, the update is done when it runs that
 * version, and failed (with what it runs) when it does not.
 */
export async function confirmUpdateOnHello(ctx: AppContext, agentId: string, version: string) {
  const [agent] = await ctx.db
    .select({ status: agents.updateStatus, target: agents.updateVersion })
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.updateStatus, "restarting")));
  if (!agent) return;
  if (agent.target === version) await setUpdate(ctx, agentId, "updated", `Updated: dbvault-agent ${version} is running`, version);
  else await setUpdate(ctx, agentId, "failed", `The agent restarted as ${version} instead of ${agent.target}`, agent.target);
}
