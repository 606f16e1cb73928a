import { timingSafeEqual } from "node:crypto";
import { eq } from "drizzle-orm";
import { type AgentRow, agents, type UserRow, users } from "@db/schema";
import { AGENT_REMOVED_MESSAGE, AgentHeaders } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { AppError, unauthorized } from "../../lib/errors";
import { hashAgentToken } from "../agents/agent-token";

function bearer(authorization: string | undefined) {
  return authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
}

/** The account behind an API key (registration and its check only). Throws 401 for an unknown key, 403 for a banned account. */
export async function authenticateApiKey(ctx: AppContext, authorization: string | undefined): Promise<UserRow> {
  const apiKey = bearer(authorization);
  if (!apiKey) throw unauthorized("An API key is required (Authorization: Bearer <API key>).");
  const [user] = await ctx.db
    .select()
    .from(users)
    .where(eq(users.apiKeyHash, ctx.apiKeys.hash(apiKey)));
  if (!user)
    throw unauthorized(
      "This API key is not valid. It may have been regenerated or replaced with a password change: copy the current one from Settings → Security.",
    );
  if (user.isBanned) throw new AppError(403, "BANNED", "This account has been suspended.");
  return user;
}

/**
 * A registered agent making a call: its id and its own token must match. The account's API key is
 * not asked for (agents still send it; it is ignored here): it only registers agents, so replacing
 * it (Settings, or with a password change) leaves running agents alone, and a stolen key gives no
 * way into an agent already set up. An agent is revoked on its own by removing or resetting it.
 */
export async function authenticateAgent(ctx: AppContext, headers: Record<string, string | undefined>): Promise<{ user: UserRow; agent: AgentRow }> {
  const agentId = headers[AgentHeaders.agentId];
  const token = headers[AgentHeaders.agentToken];
  if (!agentId || !token) throw unauthorized("Agent credentials are missing: run dbvault-agent setup.");
  const [found] = await ctx.db.select({ agent: agents, user: users }).from(agents).innerJoin(users, eq(users.id, agents.userId)).where(eq(agents.id, agentId));
  // An id that names no agent tells its holder only that this id is gone, nothing of any account.
  if (!found) throw new AppError(410, "AGENT_REMOVED", AGENT_REMOVED_MESSAGE);
  const { agent, user } = found;
  const expected = agent.tokenHash ? Buffer.from(agent.tokenHash, "hex") : null;
  const given = Buffer.from(hashAgentToken(token), "hex");
  if (!expected || expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw unauthorized(
      "This agent's credentials are not valid (it may have been removed, reset or set up again elsewhere): run dbvault-agent setup --force on its machine.",
    );
  }
  if (user.isBanned) throw new AppError(403, "BANNED", "This account has been suspended.");
  return { user, agent };
}

/** An inactive account keeps the agents it has (they keep backing up) but registers no new one. */
export function refuseNewAgentFor(user: UserRow) {
  if (user.status === "inactive") {
    throw new AppError(403, "INACTIVE", "This account is inactive, so no new agent can be set up. Agents already set up keep running.");
  }
}
