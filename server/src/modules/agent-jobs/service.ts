// The agent job ledger: every command the server owes an agent, durable until its subject (a
// backup, a restore, a drill, a verification, an update) is settled. The cluster bus carries only
// "agent X has work"; the instance holding X's socket tells the agent, which fetches its jobs over
// HTTP with its own credentials (agent-link/job-delivery.ts; an older agent is sent them on the
// socket, each once a socket). A job not started yet is delivered again on each hello while its
// lease runs: one lost in a socket swap, sent while the agent was away, or taken by an agent
// process that then restarted, arrives. The agent acknowledges a job as it queues it and names it
// in its heartbeats while it holds it, which extend the lease; it keeps the ids it took and never
// runs one twice (agent/src/daemon/job-queue.ts). Once started, a job is never delivered again:
// the lease sweep (lease-rules.ts) fails a subject that goes silent, which settles its job.
import { and, asc, eq, gt, inArray, lt, or, sql } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { type AgentJobKind, agentJobs } from "@db/schema";
import type { AgentRole, ServerMessage } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { PENDING_TIMEOUT_MS } from "./lease-rules";
import type { ClusterBus } from "../../lib/cluster-bus";
import type { SecretBox } from "../../lib/secret-box";

type JobRow = typeof agentJobs.$inferSelect;

/** What a feature enqueues: the command, for one agent (or, with `agentId` null, for whoever later claims it). */
export type NewAgentJob = {
  organizationId: string;
  agentId: string | null;
  /** The key whose readers may claim it while `agentId` is null. */
  keyId?: string | null;
  kind: AgentJobKind;
  subjectId: string;
  command: ServerMessage;
};

/**
 * A job not started is sent (again) only until its lease expires: as long as the stalled-operation
 * sweep keeps its subject pending (lease-rules.ts). Each sending renews it (the gateway keeps the
 * subject pending with it), as do the acknowledgement and the heartbeats naming it queued. One past
 * it is not revived behind the user's back: the sweep fails its subject, which settles it.
 */
const deliveryLease = (ctx: { now(): Date }) => new Date(ctx.now().getTime() + PENDING_TIMEOUT_MS);

/** The command's secrets, kept apart and sealed: a pasted identity, sealed by the web to the agent. */
function splitSecrets(box: SecretBox, command: ServerMessage): { command: Record<string, unknown>; sealed: string | null } {
  if (command.type === "restore" && command.sealedIdentity !== undefined) {
    const { sealedIdentity, ...rest } = command;
    return { command: rest, sealed: box.seal(JSON.stringify({ sealedIdentity })) };
  }
  return { command: command as Record<string, unknown>, sealed: null };
}

/**
 * Records a job, in the caller's transaction beside its own row so that neither exists without the
 * other. Call `announceWork` once it is committed.
 */
export async function enqueueJob(ctx: { commandBox: SecretBox; now(): Date }, db: DbOrTx, job: NewAgentJob): Promise<JobRow> {
  const { command, sealed } = splitSecrets(ctx.commandBox, job.command);
  const [row] = await db
    .insert(agentJobs)
    .values({ ...job, command, sealed, state: "queued", createdAt: ctx.now(), leaseExpiresAt: deliveryLease(ctx) })
    .returning();
  return row!;
}

/**
 * Records a job that may be asked again for the same subject (a backup verified once more, an
 * agent's next update check), in the caller's transaction: the new one replaces any earlier one,
 * settled or not, under a new id, so that an agent that ran the earlier one runs this one too.
 */
export async function replaceJob(ctx: { commandBox: SecretBox; now(): Date }, db: DbOrTx, job: NewAgentJob & { kind: "verify" | "update" }): Promise<JobRow> {
  await db.delete(agentJobs).where(and(eq(agentJobs.kind, job.kind), eq(agentJobs.subjectId, job.subjectId)));
  return enqueueJob(ctx, db, job);
}

/** Tells whichever instance holds the agent's socket that it has work: a few bytes, whatever the jobs hold. */
export async function announceWork(ctx: { bus: ClusterBus }, agentId: string) {
  await ctx.bus.publish({ kind: "agent.work", agentId });
}

/** Gives a job that waited for any agent able to read its backup to this one (restore-agents/readers.ts chose it); false when there is none. */
export async function assignJob(ctx: { now(): Date }, db: DbOrTx, kind: AgentJobKind, subjectId: string, agentId: string): Promise<boolean> {
  const assigned = await db
    .update(agentJobs)
    .set({ agentId, leaseExpiresAt: deliveryLease(ctx) })
    .where(and(eq(agentJobs.kind, kind), eq(agentJobs.subjectId, subjectId), eq(agentJobs.state, "queued")))
    .returning({ id: agentJobs.id });
  return assigned.length > 0;
}

/** The kinds of job an agent of this role runs: a restore agent runs no backups. */
export const jobKindsOf = (role: AgentRole | undefined): { kinds?: readonly AgentJobKind[] } =>
  role === "restore" ? { kinds: ["restore", "drill", "verify", "update"] } : {};

/**
 * The commands of the agent's jobs not started whose lease runs, oldest first, of
 * `kinds` if given, less those in `except` (already sent on its socket), each with its job id and its secrets
 * opened, counted as sent. A job whose secrets no longer open (API_KEY_SECRET changed) is failed
 * and left out: its subject then fails through the lease sweep (lease-rules.ts).
 */
export async function takeJobsToSend(ctx: AppContext, agentId: string, options: { except?: ReadonlySet<string>; kinds?: readonly AgentJobKind[] } = {}) {
  const except = options.except ?? new Set<string>();
  const queued = await ctx.db
    .select()
    .from(agentJobs)
    .where(
      and(
        eq(agentJobs.agentId, agentId),
        inArray(agentJobs.state, ["queued", "leased"]),
        gt(agentJobs.leaseExpiresAt, ctx.now()),
        ...(options.kinds ? [inArray(agentJobs.kind, [...options.kinds])] : []),
      ),
    )
    .orderBy(asc(agentJobs.createdAt), asc(agentJobs.id));
  const rows = queued.filter((row) => !except.has(row.id));
  const commands: { kind: AgentJobKind; subjectId: string; acknowledged: boolean; command: ServerMessage & { jobId: string } }[] = [];
  const unreadable: string[] = [];
  for (const row of rows) {
    const command = openCommand(ctx.commandBox, row);
    if (command) commands.push({ kind: row.kind, subjectId: row.subjectId, acknowledged: row.state === "leased", command });
    else unreadable.push(row.id);
  }
  const now = ctx.now();
  const sent = rows.filter((row) => !unreadable.includes(row.id)).map((row) => row.id);
  if (sent.length > 0) {
    await ctx.db
      .update(agentJobs)
      .set({ attempts: sql`${agentJobs.attempts} + 1`, deliveredAt: now, leaseExpiresAt: deliveryLease(ctx) })
      .where(inArray(agentJobs.id, sent));
  }
  if (unreadable.length > 0) {
    ctx.log.warn("failed agent jobs whose secrets could not be opened", { agentId, jobs: unreadable.length });
    await ctx.db.update(agentJobs).set({ state: "failed", settledAt: now }).where(inArray(agentJobs.id, unreadable));
  }
  return commands;
}

function openCommand(box: SecretBox, row: JobRow): (ServerMessage & { jobId: string }) | null {
  try {
    const secrets = row.sealed === null ? {} : (JSON.parse(box.open(row.sealed)) as Record<string, unknown>);
    return { ...row.command, ...secrets, jobId: row.id } as ServerMessage & { jobId: string };
  } catch {
    return null;
  }
}

/**
 * The agent took the job (`job.taken`, or POST agentApi.jobAck) into its queue: leased to it from
 * now. Only the agent it was given can; false when it is not one of this agent's jobs. A job
 * already running or settled is the agent's all the same (acknowledged late): true, unchanged.
 */
export async function acknowledgeJob(ctx: AppContext, agentId: string, jobId: string): Promise<boolean> {
  const leased = await ctx.db
    .update(agentJobs)
    .set({ state: "leased", leaseExpiresAt: deliveryLease(ctx) })
    .where(and(eq(agentJobs.id, jobId), eq(agentJobs.agentId, agentId), inArray(agentJobs.state, ["queued", "leased"])))
    .returning({ id: agentJobs.id });
  if (leased.length > 0) return true;
  const [own] = await ctx.db
    .select({ id: agentJobs.id })
    .from(agentJobs)
    .where(and(eq(agentJobs.id, jobId), eq(agentJobs.agentId, agentId)));
  return own !== undefined;
}

/**
 * The agent's heartbeat named these subjects waiting in its queue, and these jobs (a verification,
 * an update: no subject of their own to follow) held: their leases run on, so that a hello after
 * its process restarted (its queue lost) brings them again.
 */
export async function extendLeases(ctx: AppContext, agentId: string, subjectIds: string[], jobIds: string[] = []) {
  const named = [
    ...(subjectIds.length > 0 ? [and(inArray(agentJobs.kind, ["backup", "restore", "drill"]), inArray(agentJobs.subjectId, subjectIds))] : []),
    ...(jobIds.length > 0 ? [inArray(agentJobs.id, jobIds)] : []),
  ];
  if (named.length === 0) return;
  await ctx.db
    .update(agentJobs)
    .set({ leaseExpiresAt: deliveryLease(ctx) })
    .where(and(eq(agentJobs.agentId, agentId), or(...named), inArray(agentJobs.state, ["queued", "leased"])));
}

/**
 * Follows the subject's state, in the transaction that changes it: started, the job runs and is
 * never sent again; finished settles it.
 */
export async function followSubject(ctx: { now(): Date }, db: DbOrTx, kind: AgentJobKind | AgentJobKind[], subjectId: string, status: string) {
  if (status !== "in-progress" && status !== "completed" && status !== "failed") return;
  const kinds = Array.isArray(kind) ? kind : [kind];
  const where = and(inArray(agentJobs.kind, kinds), eq(agentJobs.subjectId, subjectId));
  if (status === "in-progress") {
    await db
      .update(agentJobs)
      .set({ state: "running", leaseExpiresAt: null })
      .where(and(where, inArray(agentJobs.state, ["queued", "leased"])));
    return;
  }
  await db
    .update(agentJobs)
    .set({ state: status === "completed" ? "done" : "failed", settledAt: ctx.now() })
    .where(and(where, inArray(agentJobs.state, ["queued", "leased", "running"])));
}

/** How long a settled job is kept (for support: what was sent, how often) before the maintenance pass deletes it. */
export const KEEP_SETTLED_JOBS_MS = 7 * 24 * 3_600_000;

/** Deletes the jobs settled more than KEEP_SETTLED_JOBS_MS ago; returns how many. */
export async function pruneSettledJobs(ctx: AppContext) {
  const deleted = await ctx.db
    .delete(agentJobs)
    .where(and(inArray(agentJobs.state, ["done", "failed"]), lt(agentJobs.settledAt, new Date(ctx.now().getTime() - KEEP_SETTLED_JOBS_MS))))
    .returning({ id: agentJobs.id });
  return deleted.length;
}
