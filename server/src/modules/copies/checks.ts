// The agent's daily check of the copies it wrote to the customer's own buckets (`dbvault-agent
// copies check`): it asks which copies to look at, HEADs each and reads one back whole, and
// reports what it found. A copy newly found gone or changed raises copy.missing / copy.changed;
// a bucket still unreachable a day after the first check that could not reach it, copy.unreachable.
import { and, eq, inArray, ne } from "drizzle-orm";
import { type AgentRow, type BackupCopyStatus, backupCopies, backups } from "@db/schema";
import { COPY_CHECK_INTERVAL_MS, type CopiesToCheckAnswer, type CopyCheckAnswer, type CopyCheckResult } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import type { CopyFacts } from "../webhooks/events";
import { notifyCopyProblems } from "../notifications/service";

/**
 * The copies of this agent's completed backups it reported written: only the agent that made a
 * backup holds the credentials of the buckets it copied it to. `due` when one went unchecked a day.
 */
export async function listCopiesToCheck(ctx: AppContext, agent: AgentRow): Promise<CopiesToCheckAnswer> {
  const rows = await ctx.db
    .select({ copy: backupCopies, databaseName: backups.databaseName })
    .from(backupCopies)
    .innerJoin(backups, eq(backups.id, backupCopies.backupId))
    .where(and(eq(backups.agentId, agent.id), eq(backups.status, "completed"), ne(backupCopies.status, "failed")))
    .orderBy(backups.createdAt, backupCopies.destination);
  const dueBefore = ctx.now().getTime() - COPY_CHECK_INTERVAL_MS;
  const copies = rows.map(({ copy, databaseName }) => ({
    backupId: copy.backupId,
    databaseName,
    destination: copy.destination,
    key: copy.key,
    status: copy.status as Exclude<BackupCopyStatus, "failed">,
    size: copy.size,
    sha256: copy.sha256,
    etag: copy.etag,
    checkedAt: copy.checkedAt?.toISOString() ?? null,
  }));
  return { copies, due: rows.some(({ copy }) => !copy.checkedAt || copy.checkedAt.getTime() <= dueBefore) };
}

const STATUS_OF = { present: "stored", missing: "missing", changed: "changed" } as const;

/**
 * Records what the check found of each copy of this agent's backups (any other is ignored). An
 * unreachable bucket tells nothing of the copy: its status stays and the reason is kept beside it;
 * it counts as checked all the same, or a bucket down for a day would have the agent read a
 * whole backup back every hour. A copy found missing or changed that was not already so is raised, once.
 * A bucket that does not answer is raised only once it has not answered for a day (one failed
 * check is often a passing outage or a network blip on the agent's host; the next daily check
 * tells), once a run of failed checks: the run ends when the bucket answers again.
 */
export async function recordCopyChecks(ctx: AppContext, agent: AgentRow, results: CopyCheckResult[]): Promise<CopyCheckAnswer> {
  const backupIds = [...new Set(results.map((result) => result.backupId))];
  const rows = await ctx.db
    .select({ copy: backupCopies, databaseName: backups.databaseName })
    .from(backupCopies)
    .innerJoin(backups, eq(backups.id, backupCopies.backupId))
    .where(and(inArray(backupCopies.backupId, backupIds), eq(backups.agentId, agent.id), ne(backupCopies.status, "failed")));
  const known = new Map(rows.map((row) => [`${row.copy.backupId} ${row.copy.destination}`, row]));
  const raised: Record<"copy.missing" | "copy.changed" | "copy.unreachable", CopyFacts[]> = { "copy.missing": [], "copy.changed": [], "copy.unreachable": [] };
  const unreachable: UnreachableCopy[] = [];
  let recorded = 0;
  const now = ctx.now();
  for (const result of results) {
    const row = known.get(`${result.backupId} ${result.destination}`);
    if (!row) continue;
    recorded++;
    const where = and(eq(backupCopies.backupId, result.backupId), eq(backupCopies.destination, result.destination));
    if (result.outcome === "unreachable") {
      const since = row.copy.unreachableSince ?? now;
      await ctx.db
        .update(backupCopies)
        .set({ error: `The last check could not reach the bucket: ${result.detail ?? "no answer"}`, checkedAt: now, updatedAt: now, unreachableSince: since })
        .where(where);
      unreachable.push({ ...row, since, reason: result.detail ?? "no answer" });
      continue;
    }
    const status = STATUS_OF[result.outcome];
    const detail = status === "stored" ? null : (result.detail ?? (status === "missing" ? "the object is gone" : "the object holds other bytes"));
    await ctx.db
      .update(backupCopies)
      .set({ status, error: detail, checkedAt: now, updatedAt: now, unreachableSince: null, unreachableAlertedAt: null })
      .where(where);
    if (status !== "stored" && row.copy.status !== status) {
      raised[`copy.${status}`].push({
        backupId: result.backupId,
        databaseName: row.databaseName,
        destination: result.destination,
        key: row.copy.key,
        detail: detail!,
      });
    }
  }
  raised["copy.unreachable"] = await raiseUnreachableBuckets(ctx, unreachable, now);
  for (const [event, copies] of Object.entries(raised) as [keyof typeof raised, CopyFacts[]][]) {
    if (copies.length === 0) continue;
    ctx.log.warn("backup copies found wrong by the agent's check", { agentId: agent.id, event, copies: copies.length });
    await notifyCopyProblems(ctx, agent.organizationId, event, copies);
  }
  ctx.log.info("backup copy check recorded", { agentId: agent.id, recorded });
  return { recorded, alerts: Object.values(raised).reduce((sum, copies) => sum + copies.length, 0) };
}

type UnreachableCopy = { copy: typeof backupCopies.$inferSelect; databaseName: string; since: Date; reason: string };

/**
 * The copies to raise as copy.unreachable: those of each bucket that has not answered since a day
 * or more and was not raised yet in this run of failed checks (marked raised here).
 */
async function raiseUnreachableBuckets(ctx: AppContext, copies: UnreachableCopy[], now: Date): Promise<CopyFacts[]> {
  const raisedBefore = now.getTime() - COPY_CHECK_INTERVAL_MS;
  const byDestination = new Map<string, UnreachableCopy[]>();
  for (const entry of copies) byDestination.set(entry.copy.destination, [...(byDestination.get(entry.copy.destination) ?? []), entry]);
  const raised: CopyFacts[] = [];
  for (const [destination, entries] of byDestination) {
    const since = Math.min(...entries.map((entry) => entry.since.getTime()));
    if (since > raisedBefore || entries.some((entry) => entry.copy.unreachableAlertedAt !== null)) continue;
    const backupIds = entries.map((entry) => entry.copy.backupId);
    await ctx.db
      .update(backupCopies)
      .set({ unreachableAlertedAt: now })
      .where(and(eq(backupCopies.destination, destination), inArray(backupCopies.backupId, backupIds)));
    for (const { copy, databaseName, reason } of entries) {
      raised.push({
        backupId: copy.backupId,
        databaseName,
        destination,
        key: copy.key,
        detail: `the bucket has not answered since ${new Date(since).toISOString()}: ${reason}`,
      });
    }
  }
  return raised;
}
