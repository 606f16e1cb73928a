// What a removed agent had in hand (agents/remove-agent.ts announces the removal, subscriptions.ts
// brings it here): its backups and restores not finished fail with the reason, as any failed one,
// so none waits for an agent that will never report again.
import { and, eq, inArray } from "drizzle-orm";
import { backups, restores } from "@db/schema";
import type { AppContext } from "../../context";
import { failBackup } from "../backups/service";
import { failRestore } from "./service";

/** Fails the agent's pending and in-progress backups and restores with `reason`. */
export async function failWorkOfRemovedAgent(ctx: AppContext, agentId: string, reason: string): Promise<void> {
  const openBackups = await ctx.db
    .select({ id: backups.id })
    .from(backups)
    .where(and(eq(backups.agentId, agentId), inArray(backups.status, ["pending", "in-progress"])));
  for (const backup of openBackups) await failBackup(ctx, backup.id, reason);
  const openRestores = await ctx.db
    .select({ id: restores.id })
    .from(restores)
    .where(and(eq(restores.agentId, agentId), inArray(restores.status, ["pending", "in-progress"])));
  for (const restore of openRestores) await failRestore(ctx, restore.id, reason);
}
