import { timingSafeEqual } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { type AgentRow, agents, type UserRow, users } from "@db/schema";
import { AGENT_REMOVED_MESSAGE, AgentHeaders } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { AppError, unauthorized } from "../../lib/errors";
import { hashAgentToken } from "../agents/agent-token";

function bearer(authorization: string | undefined) {
  return authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
}

/** The account behind an agent's API key. Throws 401 for an unknown key, 403 for a banned account. */
export async function authenticateApiKey(ctx: AppContext, authorization: string | undefined): Promise<UserRow> {
  const apiKey = bearer(authorization);
  if (!apiKey) throw unauthorized("An API key is required (Authorization: Bearer <API key>).");
  const [user] = await ctx.db
    .select()
    .from(users)
    .where(eq(users.apiKeyHash, ctx.apiKeys.hash(apiKey)));
  if (!user)
    throw unauthorized(
      "This API key is not valid. It may have been regenerated: copy the current one from Settings → Security (on a machine already set up, run dbvault-agent setup --force with it).",
    );
  if (user.isBanned) throw new AppError(403, "BANNED", "This account has been suspended.");
  return user;
}

/** A registered agent making a call: its API key, id and own token must all match. */
export async function authenticateAgent(ctx: AppContext, headers: Record<string, string | undefined>): Promise<{ user: UserRow; agent: AgentRow }> {
  const user = await authenticateApiKey(ctx, headers.authorization);
  const agentId = headers[AgentHeaders.agentId];
  const token = headers[AgentHeaders.agentToken];
  if (!agentId || !token) throw unauthorized("Agent credentials are missing: run dbvault-agent setup.");
  const [agent] = await ctx.db
    .select()
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.userId, user.id)));
  // The API key is the account's, so saying that this agent is gone tells its owner only.
  if (!agent) throw new AppError(410, "AGENT_REMOVED", AGENT_REMOVED_MESSAGE);
  const expected = agent?.tokenHash ? Buffer.from(agent.tokenHash, "hex") : null;
  const given = Buffer.from(hashAgentToken(token), "hex");
  if (!agent || !expected || expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw unauthorized(
      "This agent's credentials are not valid (it may have been removed, reset or set up again elsewhere): run dbvault-agent setup --force on its machine.",
    );
  }
  return { user, agent };
}

/** An inactive account keeps the agents it has (they keep backing up) but registers no new one. */
export function refuseNewAgentFor(user: UserRow) {
  if (user.status === "inactive") {
    throw new AppError(403, "INACTIVE", "This account is inactive, so no new agent can be set up. Agents already set up keep running.");
  }
}
