// The jobs that waited for a restore agent (restore-agents/readers.ts): verifications, drills and restores of
// backups sealed to a write-only agent's key, asked while no agent that can read them was online.
// When an agent says hello naming such a key, each is claimed (cleared in one update, so two
// instances or two hellos send it once) and sent to it.
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import { agents, backups, databases, restores } from "@db/schema";
import type { DbOrTx } from "@db/client";
import type { AppContext } from "../../context";
import { announceWork, assignJob, enqueueJob } from "../agent-jobs/service";
import { claimWaitingVerification } from "../backups/records";
import { enqueueVerification } from "../verification/service";
import { drillCommand } from "../drills/service";
import { announceRestore, restoreCommand } from "../restores/service";

/** Sends the agent the waiting jobs on backups whose key its hello named. */
export async function sendWaitingWork(ctx: AppContext, agentId: string) {
  const [agent] = await ctx.db.select().from(agents).where(eq(agents.id, agentId));
  if (!agent?.keyIds?.length || agent.status === "offline") return;
  const waiting = await ctx.db
    .select({ id: restores.id, size: backups.size })
    .from(restores)
    .innerJoin(backups, eq(backups.id, restores.backupId))
    .where(
      and(
        eq(restores.organizationId, agent.organizationId),
        eq(restores.status, "pending"),
        isNotNull(restores.waitingFor),
        inArray(backups.keyId, agent.keyIds),
      ),
    );
  for (const { id, size } of waiting) {
    // The restore and its job go to this agent together (agent-jobs/service.ts).
    const claimed = await ctx.db.transaction(async (tx) => {
      const [row] = await tx
        .update(restores)
        .set({ agentId: agent.id, waitingFor: null, lastActivityAt: ctx.now() })
        .where(and(eq(restores.id, id), eq(restores.status, "pending"), isNotNull(restores.waitingFor)))
        .returning();
      if (!row) return null;
      if (!(await assignJob(ctx, tx, row.kind, row.id, agent.id))) {
        // Asked before the ledger kept its command: built now, as it was then.
        const command = row.kind === "drill" ? drillCommand(row, size) : restoreCommand(row, size, await targetIsDatabase(tx, row));
        await enqueueJob(ctx, tx, { organizationId: row.organizationId, agentId: agent.id, kind: row.kind, subjectId: row.id, command });
      }
      return row;
    });
    if (!claimed) continue;
    await announceWork(ctx, agent.id);
    await announceRestore(ctx, claimed);
    ctx.log.info("sent a job that waited for a restore agent", { restoreId: claimed.id, agentId: agent.id, kind: claimed.kind });
  }
  const unverified = await ctx.db
    .select({ id: backups.id })
    .from(backups)
    .where(
      and(
        eq(backups.organizationId, agent.organizationId),
        eq(backups.status, "completed"),
        isNotNull(backups.verificationWaitingFor),
        inArray(backups.keyId, agent.keyIds),
      ),
    );
  for (const { id } of unverified) {
    // Claimed and queued together: two hellos, or two instances, queue it once.
    const claimed = await ctx.db.transaction(async (tx) => {
      const row = await claimWaitingVerification(ctx, id, tx);
      if (row) await enqueueVerification(ctx, tx, row, agent.id);
      return row;
    });
    if (claimed) await announceWork(ctx, agent.id);
  }
}

/** Whether a restore's target is one of the user's databases (its agent then replaces it), as requestRestore decided. */
async function targetIsDatabase(db: DbOrTx, restore: typeof restores.$inferSelect) {
  const [database] = await db
    .select({ id: databases.id })
    .from(databases)
    .where(and(eq(databases.organizationId, restore.organizationId), eq(databases.name, restore.targetDatabase ?? restore.databaseName)));
  return database !== undefined;
}
