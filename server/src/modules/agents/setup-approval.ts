// Registering an existing agent again (`setup --force`) gives it new credentials and cuts the old
// ones: whoever does it becomes that agent. The organization's API key alone is not enough, since
// whoever holds a copy of it (and an agent's id) would take the agent over. It takes the agent's
// own credentials (the machine's config file still holds them), or a one-time code the server
// answers the machine with, which a user of the organization approves from a session re-authenticated
// within ten minutes; the machine then registers again with the code.
import { randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { and, eq, gt, isNotNull } from "drizzle-orm";
import { type AgentRow, agents } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, badRequest, notFound } from "../../lib/errors";
import { type AuditActor, recordAudit } from "../audit/service";
import { hashAgentToken } from "./agent-token";

/** How long a set-up code may be approved and then used. */
export const SETUP_CODE_TTL_MS = 15 * 60_000;

/** A new agent's id: 128 random bits in hex, so that no id can be guessed from another (ids made before stay valid). */
export const newAgentId = () => randomBytes(16).toString("hex");

// No 0/O, 1/I/L: the code is read off a terminal and typed into the web app. 10 characters: 50 bits.
const ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
const newSetupCode = () => {
  const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]);
  return `${chars.slice(0, 5).join("")}-${chars.slice(5).join("")}`;
};
const normalized = (code: string) => code.toUpperCase().replace(/[^0-9A-Z]/g, "");
const hashSetupCode = (code: string) => hashAgentToken(`setup:${normalized(code)}`);

const sameHash = (stored: string | null, hash: string) => {
  if (!stored || stored.length !== hash.length) return false;
  return timingSafeEqual(Buffer.from(stored, "hex"), Buffer.from(hash, "hex"));
};

/** Whether the agent's own id and token (as an agent sends them) are this agent's. */
export function holdsOwnCredentials(agent: AgentRow, own: { agentId?: string; agentToken?: string }): boolean {
  return own.agentId === agent.id && own.agentToken !== undefined && sameHash(agent.tokenHash, hashAgentToken(own.agentToken));
}

/**
 * Throws unless the register call may give `agent` new credentials: its own credentials, or an
 * approved, unexpired set-up code (used up here). Without either, a new code is issued (unless an
 * approved one is waiting: a second caller must not void it) and answered in a 409 that says
 * what to do; only the machine that asked sees it.
 */
export async function authorizeRegisteringAgain(ctx: AppContext, agent: AgentRow, own: { agentId?: string; agentToken?: string }, setupCode?: string) {
  if (holdsOwnCredentials(agent, own)) return;
  const now = ctx.now();
  const live = agent.setupCodeExpiresAt !== null && agent.setupCodeExpiresAt > now;
  if (setupCode !== undefined) {
    // Used up in the same statement that checks it: two calls with one code cannot both pass.
    const [used] = await ctx.db
      .update(agents)
      .set({ setupCodeHash: null, setupCodeExpiresAt: null, setupCodeApprovedAt: null })
      .where(
        and(
          eq(agents.id, agent.id),
          eq(agents.setupCodeHash, hashSetupCode(setupCode)),
          isNotNull(agents.setupCodeApprovedAt),
          gt(agents.setupCodeExpiresAt, now),
        ),
      )
      .returning({ id: agents.id });
    if (used) return;
    throw new AppError(
      409,
      "AGENT_SETUP_APPROVAL_REQUIRED",
      "This set-up code is not valid: it was not approved, has expired or was used. Run dbvault-agent setup --force again without --setup-code for a new one.",
    );
  }
  if (live && agent.setupCodeApprovedAt) {
    throw new AppError(
      409,
      "AGENT_SETUP_APPROVAL_REQUIRED",
      "A set-up code for this agent was approved and waits: run dbvault-agent setup --force --setup-code CODE with the code this machine was shown.",
    );
  }
  const code = newSetupCode();
  await ctx.db
    .update(agents)
    .set({ setupCodeHash: hashSetupCode(code), setupCodeExpiresAt: new Date(now.getTime() + SETUP_CODE_TTL_MS), setupCodeApprovedAt: null })
    .where(eq(agents.id, agent.id));
  throw new AppError(
    409,
    "AGENT_SETUP_APPROVAL_REQUIRED",
    `This machine was set up before as the agent "${agent.name}", and its own credentials are not valid here any more. ` +
      `So that nobody else holding the API key can take the agent over, a user of the organization approves the code ${code}: ` +
      `in the web app (Settings → Agents → ${agent.name} → Approve a set-up code) or with POST /api/agents/${agent.id}/setup-approval after confirming their password. ` +
      `Then run dbvault-agent setup --force --setup-code ${code} within 15 minutes.`,
    { setupCode: code, agentId: agent.id },
  );
}

/** A user approves the code a machine was shown (the caller checked the re-authentication). */
export async function approveSetupCode(ctx: AppContext, organizationId: string, agentId: string, setupCode: string, actor?: AuditActor) {
  const [agent] = await ctx.db
    .select()
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.organizationId, organizationId)));
  if (!agent) throw notFound("Agent");
  const live = agent.setupCodeExpiresAt !== null && agent.setupCodeExpiresAt > ctx.now();
  if (!live || !sameHash(agent.setupCodeHash, hashSetupCode(setupCode))) {
    throw badRequest(
      "This set-up code is not the one the agent's machine was last shown, or it has expired: run dbvault-agent setup --force there again for a new one.",
    );
  }
  await ctx.db.transaction(async (tx) => {
    await tx.update(agents).set({ setupCodeApprovedAt: ctx.now() }).where(eq(agents.id, agent.id));
    await recordAudit(tx, organizationId, "AGENT_SETUP_APPROVED", { agentId: agent.id, name: agent.name }, actor);
  });
  return { message: `Approved. Run dbvault-agent setup --force --setup-code ${setupCode} on the agent's machine within 15 minutes.` };
}
