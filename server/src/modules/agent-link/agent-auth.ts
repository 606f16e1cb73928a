import { timingSafeEqual } from "node:crypto";
import { eq } from "drizzle-orm";
import { type AgentRow, agents, type OrganizationRow, organizations, removedAgents, users } from "@db/schema";
import { AGENT_REMOVED_MESSAGE, AgentHeaders } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { AppError, unauthorized } from "../../lib/errors";
import { hashAgentToken } from "../agents/agent-token";

function bearer(authorization: string | undefined) {
  return authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
}

/**
 * The founder of a personal organization (sharing its id), whose ban or inactive status reaches
 * the organization's agents; null for a team organization.
 */
const founder = () => ({ name: users.name, isBanned: users.isBanned, status: users.status });
type Founder = { name: string; isBanned: boolean; status: string } | null;

/** The name an API key's check answers: the account's for a personal organization, else the team's. */
export const keyHolderName = (found: { organization: OrganizationRow; founder: Founder }) => found.founder?.name ?? found.organization.name;

/**
 * The organization behind an API key (registration and its check only): agents register into the
 * organization whose key they present. Throws 401 for an unknown key, 403 for a banned account.
 */
export async function authenticateApiKey(ctx: AppContext, authorization: string | undefined): Promise<{ organization: OrganizationRow; founder: Founder }> {
  const apiKey = bearer(authorization);
  if (!apiKey) throw unauthorized("An API key is required (Authorization: Bearer <API key>).");
  const [found] = await ctx.db
    .select({ organization: organizations, founder: founder() })
    .from(organizations)
    .leftJoin(users, eq(users.id, organizations.id))
    .where(eq(organizations.apiKeyHash, ctx.apiKeys.hash(apiKey)));
  if (!found)
    throw unauthorized(
      "This API key is not valid. It may have been regenerated or replaced with a password change: copy the current one from Settings → Security.",
    );
  if (found.founder?.isBanned) throw new AppError(403, "BANNED", "This account has been suspended.");
  return found;
}

/**
 * A registered agent making a call: its id and its own token must match. The account's API key is
 * not asked for (agents still send it; it is ignored here): it only registers agents, so replacing
 * it (Settings, or with a password change) leaves running agents alone, and a stolen key gives no
 * way into an agent already set up. An agent is revoked on its own by removing or resetting it.
 */
export async function authenticateAgent(
  ctx: AppContext,
  headers: Record<string, string | undefined>,
): Promise<{ organization: OrganizationRow; agent: AgentRow }> {
  const agentId = headers[AgentHeaders.agentId];
  const token = headers[AgentHeaders.agentToken];
  if (!agentId || !token) throw unauthorized("Agent credentials are missing: run dbvault-agent setup.");
  const given = Buffer.from(hashAgentToken(token), "hex");
  const [found] = await ctx.db
    .select({ agent: agents, organization: organizations, founder: founder() })
    .from(agents)
    .innerJoin(organizations, eq(organizations.id, agents.organizationId))
    .leftJoin(users, eq(users.id, organizations.id))
    .where(eq(agents.id, agentId));
  if (found && sameHash(found.agent.tokenHash, given)) {
    if (found.founder?.isBanned) throw new AppError(403, "BANNED", "This account has been suspended.");
    return { organization: found.organization, agent: found.agent };
  }
  // Whether the id is unknown or its token wrong, the answer (and the work) is the same, so an
  // id cannot be found by guessing. Only a removed agent presenting its own token learns it was
  // removed, so it stops for good instead of retrying.
  const [removed] = await ctx.db.select({ tokenHash: removedAgents.tokenHash }).from(removedAgents).where(eq(removedAgents.agentId, agentId));
  if (sameHash(removed?.tokenHash ?? null, given)) throw new AppError(410, "AGENT_REMOVED", AGENT_REMOVED_MESSAGE);
  throw unauthorized(AGENT_CREDENTIALS_REFUSED);
}

/** The one answer to an agent id and token that do not match (unknown id or wrong token alike). */
export const AGENT_CREDENTIALS_REFUSED =
  "This agent's credentials are not valid (it may have been removed, reset or set up again elsewhere): run dbvault-agent setup --force on its machine.";

/** A stand-in hash compared when there is none, so a miss costs what a wrong token does. */
const NO_HASH = Buffer.alloc(32);

/** Compares a stored token hash with the presented one in constant time, a missing one included. */
function sameHash(stored: string | null | undefined, given: Buffer) {
  const expected = stored && /^[0-9a-f]{64}$/.test(stored) ? Buffer.from(stored, "hex") : null;
  const matches = timingSafeEqual(expected ?? NO_HASH, given);
  return expected !== null && matches;
}

/** An inactive account keeps the agents it has (they keep backing up) but registers no new one. */
export function refuseNewAgentFor(founder: Founder) {
  if (founder?.status === "inactive") {
    throw new AppError(403, "INACTIVE", "This account is inactive, so no new agent can be set up. Agents already set up keep running.");
  }
}
