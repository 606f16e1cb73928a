// The policy's state as one read answers it. Turning off is not a job that must run on time:
// a request past its `offAt` is off for every check at once, and the first read (or the
// maintenance pass) records that it took effect.
import { and, eq, lte } from "drizzle-orm";
import { backupProtections } from "@db/schema";
import type { AppContext } from "../../context";
import { recordAudit } from "../audit/service";

/** How long a request to turn the policy off waits before it takes effect. */
export const TURN_OFF_WAIT_MS = 7 * 24 * 3_600_000;

export type ProtectionState =
  | { state: "off" }
  | { state: "on"; enabledAt: Date }
  | { state: "turning-off"; enabledAt: Date; offRequestedAt: Date; offAt: Date };

/** A date as messages and e-mails show it: unambiguous in every locale. */
export const formatWhen = (date: Date) => `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;

type ProtectionRow = typeof backupProtections.$inferSelect;

/** What a stored row means at `now`: a turn-off past its date is off already, whether or not its row is gone yet. */
export function stateOfRow(row: ProtectionRow | null | undefined, now: Date): ProtectionState {
  if (!row) return { state: "off" };
  if (row.offAt && row.offRequestedAt) {
    if (row.offAt.getTime() <= now.getTime()) return { state: "off" };
    return { state: "turning-off", enabledAt: row.enabledAt, offRequestedAt: row.offRequestedAt, offAt: row.offAt };
  }
  return { state: "on", enabledAt: row.enabledAt };
}

/** The user's policy now; a turn-off whose wait is over is finished here (row gone, audited). */
export async function protectionOf(ctx: AppContext, organizationId: string): Promise<ProtectionState> {
  const [row] = await ctx.db.select().from(backupProtections).where(eq(backupProtections.organizationId, organizationId));
  const state = stateOfRow(row, ctx.now());
  if (row?.offAt && state.state === "off") await finishTurnOff(ctx, organizationId, row.offAt);
  return state;
}

/** Removes the policy whose turn-off was due at `offAt`, once: a concurrent reader finds it gone. */
async function finishTurnOff(ctx: AppContext, organizationId: string, offAt: Date) {
  await ctx.db.transaction(async (tx) => {
    const [removed] = await tx
      .delete(backupProtections)
      .where(and(eq(backupProtections.organizationId, organizationId), eq(backupProtections.offAt, offAt)))
      .returning();
    if (removed)
      await recordAudit(tx, organizationId, "BACKUP_PROTECTION_OFF", {
        type: "auto",
        requestedAt: removed.offRequestedAt?.toISOString(),
        offAt: offAt.toISOString(),
      });
  });
}

/** The maintenance pass: finishes every turn-off whose wait is over, so the audit log says when it took effect. */
export async function finishDueTurnOffs(ctx: AppContext) {
  const due = await ctx.db.select({ organizationId: backupProtections.organizationId }).from(backupProtections).where(lte(backupProtections.offAt, ctx.now()));
  for (const { organizationId } of due) await protectionOf(ctx, organizationId);
  return due.length;
}
