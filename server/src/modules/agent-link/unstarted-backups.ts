// A backup command is sent once, fire and forget (lib/agent-commands.ts). Sent while the agent
// swaps sockets (a network blip, its process restarting, its credentials reset) it reaches a
// closing socket or none, and the backup stayed pending until the sweep failed it as never
// started: a scheduled backup silently lost. So an agent's hello brings the command again for
// each of its backups still pending; the agent ignores one it already holds (daemon/job-queue.ts).
import { and, eq, gt, gte, lt } from "drizzle-orm";
import { agents, backups } from "@db/schema";
import type { AppContext } from "../../context";
import { sendToAgent } from "../../lib/agent-commands";
import { backupCommand } from "../backups/command";
import { PENDING_TIMEOUT_MS, QUEUED_LIMIT_MS } from "../agents/job-deadlines";

/**
 * Sends the agent again the commands of its backups not started yet. Pending is exactly that: the
 * agent's first progress report moves a backup to in-progress (recordBackupProgress). Only those
 * the sweep would keep (scheduler/service.ts failStalledOperations, agents/queued-jobs.ts): one
 * already due to fail as never started is not revived behind the user's back. Restores are left
 * alone: one may carry a sealed identity pasted once in the web, which the server cannot rebuild.
 * Nor those active since the socket opened: asked for then (their command came on this socket,
 * perhaps before the hello) or named queued by its heartbeat, the agent has them.
 */
export async function resendUnstartedBackups(ctx: AppContext, agentId: string, socketOpenedAt: Date) {
  const [agent] = await ctx.db.select({ role: agents.role, status: agents.status }).from(agents).where(eq(agents.id, agentId));
  // A restore agent runs no backups; an offline one has no socket to send on.
  if (!agent || agent.role === "restore" || agent.status === "offline") return;
  const now = ctx.now().getTime();
  // Marked active as they are sent: the agent has until the next sweep's deadline to start or
  // queue it (its heartbeat then keeps it pending), as it had when the backup was first asked.
  const unstarted = await ctx.db
    .update(backups)
    .set({ lastActivityAt: new Date(now) })
    .where(
      and(
        eq(backups.agentId, agentId),
        eq(backups.status, "pending"),
        gte(backups.lastActivityAt, new Date(now - PENDING_TIMEOUT_MS)),
        lt(backups.lastActivityAt, socketOpenedAt),
        gt(backups.createdAt, new Date(now - QUEUED_LIMIT_MS)),
      ),
    )
    .returning();
  unstarted.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  for (const backup of unstarted) {
    await sendToAgent(ctx, agentId, backupCommand(backup));
    ctx.log.info("sent again a backup its agent had not started", { backupId: backup.id, agentId, databaseName: backup.databaseName });
  }
}
