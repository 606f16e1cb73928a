import { randomBytes } from "node:crypto";
import { and, asc, eq, lt, ne, sql } from "drizzle-orm";
import { type AgentRole, type AgentRow, agents, type OrganizationRow } from "@db/schema";
import type { RegisterRequest } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { sendToAgent } from "../../lib/agent-commands";
import { AppError, notFound } from "../../lib/errors";
import { type AuditActor, recordAudit } from "../audit/service";
import { alertRecipients } from "../organizations/recipients";
import { queueMail } from "../mail/outbox";
import { notifyAgentConnected, notifyAgentDisconnected } from "../notifications/service";
import { hashAgentToken } from "./agent-token";
import { recordUpdateRequested } from "./updates";
import { declareDatabasesIn, handOverDatabases } from "../databases/declared";
import { authorizeRegisteringAgain, newAgentId } from "./setup-approval";

/** An agent counts as inactive after this long without a heartbeat, and offline after OFFLINE_AFTER_MS. */
export const INACTIVE_AFTER_MS = 60_000;
export const OFFLINE_AFTER_MS = 5 * 60_000;
/**
 * How long a closed socket waits before it is announced (audit entry, e-mail, webhook): a server
 * stopped or restarted closes every agent's socket, and they are back within seconds.
 */
export const DISCONNECT_GRACE_MS = 2 * 60_000;

export function toAgentView(agent: AgentRow) {
  return {
    _id: agent.id,
    id: agent.id,
    name: agent.name,
    hostname: agent.hostname,
    platform: agent.platform,
    version: agent.version,
    /** Key ids of the agent's keyring (public fingerprints), as it last said; null when it did not. */
    keyIds: agent.keyIds ?? null,
    /** "backup", or "restore": holds a write-only agent's identity, runs verifications, drills and restores only. */
    role: agent.role,
    /** The age recipient the web seals a pasted identity to (public); null: the agent is too old to take one. */
    identityRecipient: agent.identityRecipient,
    status: agent.status,
    lastSeen: agent.lastSeen?.toISOString() ?? null,
    lastUpdate: agent.updateStatus
      ? { status: agent.updateStatus, message: agent.updateMessage ?? "", version: agent.updateVersion, at: agent.updateAt?.toISOString() ?? null }
      : null,
  };
}

const newAgentToken = () => `dbvt_${randomBytes(32).toString("base64url")}`;

/** "db-host-3f2a": the host name and the end of the agent's id, so two agents on look-alike hosts differ. */
export function defaultAgentName(hostname: string, agentId: string): string {
  return `${hostname.slice(0, 90)}-${agentId.slice(-4)}`;
}

/**
 * Registers an agent and its database names; answers its id, its own connection token and its
 * name. `input.agentId` (setup --force on a machine already set up) names an agent of this user to
 * register again: the same agent gets new credentials, the old ones stop working and its old
 * socket is closed, instead of a second agent appearing beside it. That takes the agent's own
 * credentials (`own`, the headers an agent sends) or an approved set-up code (setup-approval.ts):
 * the API key alone registers only new agents. One transaction: a failure
 * leaves no agent row behind. A name equal to the host name (setup's default) gets a short id.
 */
export async function registerAgent(
  ctx: AppContext,
  organization: OrganizationRow,
  input: RegisterRequest,
  own: { agentId?: string; agentToken?: string } = {},
) {
  const [named] = input.agentId
    ? await ctx.db
        .select()
        .from(agents)
        .where(and(eq(agents.id, input.agentId), eq(agents.organizationId, organization.id)))
    : [];
  if (named) await authorizeRegisteringAgain(ctx, named, own, input.setupCode);
  const agentToken = newAgentToken();
  const defaultName = input.name === input.hostname;
  const { agentId, name, registered, again } = await ctx.db.transaction(async (tx) => {
    const [existing] = input.agentId
      ? await tx
          .select()
          .from(agents)
          .where(and(eq(agents.id, input.agentId), eq(agents.organizationId, organization.id)))
          .for("update")
      : [];
    const role = input.role ?? "backup";
    const details = { hostname: input.hostname, platform: input.platform, version: input.version, role, tokenHash: hashAgentToken(agentToken) };
    let agent: AgentRow;
    if (existing) {
      [agent] = (await tx
        .update(agents)
        .set({ ...details, name: defaultName ? existing.name : input.name, setupCodeHash: null, setupCodeExpiresAt: null, setupCodeApprovedAt: null })
        .where(eq(agents.id, existing.id))
        .returning()) as [AgentRow];
    } else {
      const id = newAgentId();
      [agent] = (await tx
        .insert(agents)
        .values({ id, organizationId: organization.id, ...details, name: defaultName ? defaultAgentName(input.hostname, id) : input.name, status: "offline" })
        .returning()) as [AgentRow];
    }
    await recordAudit(tx, organization.id, existing ? "AGENT_REREGISTERED" : "AGENT_REGISTERED", {
      agentId: agent.id,
      name: agent.name,
      hostname: input.hostname,
    });
    // A restore agent's databases are where it restores, not what it backs up: it runs none.
    const registered = await declareDatabasesIn(tx, ctx, organization, agent.id, role === "restore" ? [] : input.databases, {
      exact: true,
      pitrAccess: new Map(input.pitrAccess?.map((entry) => [entry.database, entry.access])),
    });
    return { agentId: agent.id, name: agent.name, registered, again: Boolean(existing) };
  });
  if (again) {
    // The process still holding the old credentials (if any) is told why and let go.
    await disconnectUserAgents(ctx, organization.id, REREGISTERED_MESSAGE, { agentId });
  }
  ctx.log.info(again ? "agent registered again" : "agent registered", { organizationId: organization.id, agentId });
  await tellOwnerOfRegistration(ctx, organization.id, { name, hostname: input.hostname, again });
  return { agentId, agentToken, name, databases: registered };
}

/**
 * Whoever holds the API key can set up agents, so the owners and admins hear of each one (a key copied by
 * someone else shows up here, also after the owner signed out everywhere).
 */
async function tellOwnerOfRegistration(ctx: AppContext, organizationId: string, agent: { name: string; hostname: string; again: boolean }) {
  try {
    for (const recipient of await alertRecipients(ctx.db, organizationId))
      await queueMail(ctx, {
        to: recipient.email,
        subject: agent.again ? "A DBVault agent was set up again" : "A new DBVault agent was set up",
        text: [
          `${agent.again ? "The agent" : "A new agent"} "${agent.name}" on host ${agent.hostname} was set up with your account's API key at ${ctx.now().toISOString()}.`,
          "",
          "If it was not you: remove the agent in Settings → Agents, and regenerate the API key in Settings → Security",
          "(agents already set up keep running with their own credentials; only new set-ups need the new key).",
        ].join("\n"),
      });
  } catch (error) {
    ctx.log.error("agent registration notice failed", { organizationId, error });
  }
}

const REREGISTERED_MESSAGE = "This agent was set up again (setup --force): it reconnects with the new credentials from its config file.";

/** Renames one of the user's agents (Settings → Agents); 404 for another user's. */
export async function renameAgent(ctx: AppContext, organizationId: string, agentId: string, name: string, actor?: AuditActor) {
  const trimmed = name.trim();
  const [before] = await ctx.db
    .select({ name: agents.name })
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.organizationId, organizationId)));
  if (!before) throw notFound("Agent");
  const [agent] = await ctx.db.update(agents).set({ name: trimmed }).where(eq(agents.id, agentId)).returning();
  if (!agent) throw notFound("Agent");
  await recordAudit(ctx.db, organizationId, "AGENT_RENAMED", { agentId, name: trimmed, previousName: before.name }, actor);
  return toAgentView(agent);
}

export async function listAgents(ctx: AppContext, organizationId: string) {
  const rows = await ctx.db.select().from(agents).where(eq(agents.organizationId, organizationId)).orderBy(asc(agents.createdAt));
  return rows.map(toAgentView);
}

/** Sends a message to an agent through whichever server instance holds its socket. */
const manageMessages = {
  restart: "Restart command sent to agent",
  update: "Update check command sent to agent",
  reset: "Reset command sent to agent. It will reconnect with new connection credentials; if it stays offline, run dbvault-agent setup --force on its server.",
} as const;

/** A user's command to one of their agents (restart, update check, reset of its credentials). */
export async function manageAgent(ctx: AppContext, organizationId: string, agentId: string, action: keyof typeof manageMessages) {
  const [agent] = await ctx.db
    .select()
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.organizationId, organizationId)));
  if (!agent) throw notFound("Agent");
  if (agent.status === "offline") {
    throw new AppError(409, "AGENT_OFFLINE", `The agent "${agent.name}" is offline. Start it with dbvault-agent run, then try again.`);
  }
  if (action === "reset") {
    const agentToken = newAgentToken();
    await ctx.db
      .update(agents)
      .set({ tokenHash: hashAgentToken(agentToken) })
      .where(eq(agents.id, agent.id));
    await sendToAgent(ctx, agent.id, { type: "reset", agentToken });
  } else {
    // Recorded first: the agent's own reports, which may come back at once, must not be overwritten.
    if (action === "update") await recordUpdateRequested(ctx, agent.id);
    await sendToAgent(ctx, agent.id, { type: action });
  }
  ctx.log.info("agent command sent", { organizationId, agentId, action });
  return { message: manageMessages[action] };
}

/**
 * Records that an agent's socket opened on this instance. The first time, its databases'
 * scheduled backups begin (runDueBackups); every time, an outage ends (its notice may be sent
 * again next time). An agent that was offline is announced online (agent.online), once: the row
 * is locked while its old status is read.
 */
export async function markAgentConnected(
  ctx: AppContext,
  agentId: string,
  connectionId: string,
  info: { version?: string; hostname?: string; platform?: string; keyIds?: string[]; role?: AgentRole; identityRecipient?: string | null },
) {
  const now = ctx.now();
  const cameOnline = await ctx.db.transaction(async (tx) => {
    const [before] = await tx.select({ status: agents.status }).from(agents).where(eq(agents.id, agentId)).for("update");
    const [after] = await tx
      .update(agents)
      .set({
        status: "active",
        lastSeen: now,
        connectionId,
        outageNoticeAt: null,
        disconnectedAt: null,
        firstConnectedAt: sql`coalesce(${agents.firstConnectedAt}, ${now.toISOString()}::timestamptz)`,
        ...info,
      })
      .where(eq(agents.id, agentId))
      .returning();
    return before?.status === "offline" ? after : undefined;
  });
  if (cameOnline) await notifyAgentConnected(ctx, cameOnline);
}

/** The key ids the agent's keyring holds now, told by `key rotate` or `key import` on its machine. */
export async function recordAgentKeyIds(ctx: AppContext, agentId: string, keyIds: string[]) {
  await ctx.db.update(agents).set({ keyIds }).where(eq(agents.id, agentId));
}

export async function recordHeartbeat(ctx: AppContext, agentId: string, connectionId: string) {
  await ctx.db
    .update(agents)
    .set({ status: "active", lastSeen: ctx.now() })
    .where(and(eq(agents.id, agentId), eq(agents.connectionId, connectionId)));
}

/**
 * Marks an agent offline when its current socket closed; another online agent holding its
 * databases runs them from now on. AGENT_DISCONNECTED and the notice wait DISCONNECT_GRACE_MS
 * (sweepAgentStatuses), so a server restart the agents ride out alarms nobody.
 */
export async function markAgentDisconnected(ctx: AppContext, agentId: string, connectionId: string) {
  const [agent] = await ctx.db
    .update(agents)
    .set({ status: "offline", connectionId: null, disconnectedAt: ctx.now() })
    .where(and(eq(agents.id, agentId), eq(agents.connectionId, connectionId)))
    .returning();
  if (agent) await handOverDatabases(ctx.db, agent.id, { onlineOnly: true });
}

/** An agent gone offline: another online agent holding its databases runs them from now on. */
async function recordDisconnection(ctx: AppContext, agent: AgentRow) {
  await handOverDatabases(ctx.db, agent.id, { onlineOnly: true });
  await announceDisconnection(ctx, agent);
}

async function announceDisconnection(ctx: AppContext, agent: AgentRow) {
  await recordAudit(ctx.db, agent.organizationId, "AGENT_DISCONNECTED", { agentId: agent.id, name: agent.name, hostname: agent.hostname });
  await notifyAgentDisconnected(ctx, agent);
}

/**
 * Moves agents whose heartbeats stopped to inactive, then offline (also covering sockets held by
 * an instance that died without closing them).
 */
export async function sweepAgentStatuses(ctx: AppContext) {
  const now = ctx.now().getTime();
  await ctx.db
    .update(agents)
    .set({ status: "inactive" })
    .where(and(eq(agents.status, "active"), lt(agents.lastSeen, new Date(now - INACTIVE_AFTER_MS))));
  const gone = await ctx.db
    .update(agents)
    .set({ status: "offline", connectionId: null })
    .where(and(ne(agents.status, "offline"), lt(agents.lastSeen, new Date(now - OFFLINE_AFTER_MS))))
    .returning();
  for (const agent of gone) await recordDisconnection(ctx, agent);
  // Closed sockets still offline past the grace period; the update claims each announcement, so
  // several instances make it once.
  const stillGone = await ctx.db
    .update(agents)
    .set({ disconnectedAt: null })
    .where(and(eq(agents.status, "offline"), lt(agents.disconnectedAt, new Date(now - DISCONNECT_GRACE_MS))))
    .returning();
  for (const agent of stillGone) await announceDisconnection(ctx, agent);
}

/** Closes the sockets of a user's agents (or of one) on every instance: when its API key changes, or it is set up again. */
export async function disconnectUserAgents(ctx: AppContext, organizationId: string, reason: string, options: { closeCode?: number; agentId?: string } = {}) {
  await ctx.bus.publish({ kind: "agent.disconnect", organizationId, reason, ...options });
}
