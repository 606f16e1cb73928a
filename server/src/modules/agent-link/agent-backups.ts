import { and, eq } from "drizzle-orm";
import { type AgentRow, type backups, databases, restores } from "@db/schema";
import type { AppContext } from "../../context";
import { notFound } from "../../lib/errors";
import { findOwnBackup } from "../backups/service";

/**
 * A backup an agent may download: one it made, one of a database it runs now (a verification goes
 * there, verification/service.ts), one it was asked to restore or drill, or, for a restore agent,
 * one sealed to a key its hello named (it verifies those). Any other backup of the account is not
 * found: an agent registered with a copied API key reads none of the others.
 */
export async function findBackupForAgent(ctx: AppContext, agent: AgentRow, backupId: string): Promise<typeof backups.$inferSelect> {
  const backup = await findOwnBackup(ctx, agent.organizationId, backupId);
  if (backup.agentId === agent.id || (await agentRunsDatabase(ctx, agent, backup.databaseName))) return backup;
  if (agent.role === "restore" && backup.keyId && agent.keyIds?.includes(backup.keyId)) return backup;
  const [asked] = await ctx.db
    .select({ id: restores.id })
    .from(restores)
    .where(and(eq(restores.backupId, backup.id), eq(restores.agentId, agent.id)));
  if (asked) return backup;
  throw notFound("Backup");
}

/** Whether the agent runs the account's database of this name now. */
export async function agentRunsDatabase(ctx: AppContext, agent: AgentRow, databaseName: string): Promise<boolean> {
  const [runs] = await ctx.db
    .select({ id: databases.id })
    .from(databases)
    .where(and(eq(databases.organizationId, agent.organizationId), eq(databases.name, databaseName), eq(databases.agentId, agent.id)));
  return runs !== undefined;
}
