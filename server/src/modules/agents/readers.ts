// Which agent reads a backup (issue 27 §4). A backup agent in write-only mode seals its backups to
// a public key and can open none of them; the private key (the identity) stays on a restore
// agent, which then runs their verifications, drills and restores. The server knows only what
// each agent's hello says it can open (its key ids: fingerprints, never a key) and matches them
// with the key id each backup's header names.
import { and, asc, desc, eq, sql } from "drizzle-orm";
import { type AgentRow, agents, type backups, databases } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";

type BackupRow = typeof backups.$inferSelect;
type BackupFacts = Pick<BackupRow, "organizationId" | "databaseName" | "agentId" | "keyId">;

/**
 * An agent to send the job to now (the usual one, possibly offline or gone: the caller says so),
 * or why it waits: no agent that can read the backup is online (`anyReader`: one exists).
 */
export type Reader = { agent: AgentRow | undefined } | { waiting: string; anyReader: boolean };

/** Whether an agent opens a backup, by its hello: unknown key ids (older agents and backups) count as yes. */
export function canRead(agent: Pick<AgentRow, "keyIds">, keyId: string | null): boolean {
  return keyId === null || agent.keyIds === null || agent.keyIds.includes(keyId);
}

/** The agent serving a backup's database now (it may have moved since the backup), else the one that made it. */
export async function usualAgentOf(ctx: AppContext, backup: BackupFacts): Promise<AgentRow | undefined> {
  const [database] = await ctx.db
    .select({ agentId: databases.agentId })
    .from(databases)
    .where(and(eq(databases.organizationId, backup.organizationId), eq(databases.name, backup.databaseName)));
  const agentId = database?.agentId ?? backup.agentId;
  const [agent] = agentId ? await ctx.db.select().from(agents).where(eq(agents.id, agentId)) : [];
  return agent;
}

/** The organization's agents whose hello named this key id: restore agents first, online ones first. */
export function listReaders(ctx: AppContext, organizationId: string, keyId: string): Promise<AgentRow[]> {
  return ctx.db
    .select()
    .from(agents)
    .where(and(eq(agents.organizationId, organizationId), sql`${agents.keyIds} @> ${JSON.stringify([keyId])}::jsonb`))
    .orderBy(sql`${agents.status} <> 'offline' desc`, sql`${agents.role} = 'restore' desc`, desc(agents.lastSeen), asc(agents.createdAt));
}

/** 409 AGENT_OFFLINE: the agent that would run a job on the database is not connected. */
export const agentOffline = (databaseName: string) =>
  new AppError(409, "AGENT_OFFLINE", `No agent is online for "${databaseName}". Start it with dbvault-agent run on its server, then try again.`);

/** Why a job on a backup sealed to `keyId` waits, when agents that can read it exist but are all offline. */
export function noReaderOnline(readers: readonly Pick<AgentRow, "name">[]): string {
  const names = readers.map((agent) => agent.name).join(", ");
  return `Waiting for a restore agent: none online. ${names} can read this backup; start dbvault-agent run there and it begins at once.`;
}

/** Why a job waits (or is refused) when no agent at all can read the backup. */
export function noReaderSetUp(keyId: string): string {
  return (
    `Waiting for an agent that holds the key ${keyId}: none of this organization's agents can open this backup. ` +
    "If a write-only agent sealed it, set up a restore agent where its identity is kept: dbvault-agent setup --role restore --identity FILE. " +
    "If it was made with a master key since replaced, import that key on an agent: dbvault-agent key import (from what dbvault-agent key export saved)."
  );
}

/**
 * The agent that runs a verification, drill or restore of a backup: the usual one when it can
 * read it (or nobody can tell); otherwise an online agent whose keyring names the backup's key,
 * restore agents first; otherwise why the job waits. The usual agent is answered even when it is
 * offline or gone (undefined) and no other agent can read the backup: the caller says so.
 */
export async function chooseReader(ctx: AppContext, backup: BackupFacts, usualAgent?: AgentRow | null): Promise<Reader> {
  // A restore over another database has that database's agent as its usual one.
  const usual = usualAgent === undefined ? await usualAgentOf(ctx, backup) : (usualAgent ?? undefined);
  if (backup.keyId && !(usual && canRead(usual, backup.keyId))) {
    const readers = await listReaders(ctx, backup.organizationId, backup.keyId);
    const online = readers.find((agent) => agent.status !== "offline");
    if (online) return { agent: online };
    if (readers.length > 0) return { waiting: noReaderOnline(readers), anyReader: true };
    if (usual) return { waiting: noReaderSetUp(backup.keyId), anyReader: false };
  }
  return { agent: usual };
}
