// Restoring a database to a moment (issue 25 §3): the newest base backup consistent at or before
// it and the slices of one unbroken chain from there to it, recorded on the restore; the command
// names the moment and the agent fetches the slices (pitr/agent-plan.ts). The server only matches
// positions; the agent checks and replays.
import { and, eq } from "drizzle-orm";
import { databases, pitrSlices } from "@db/schema";
import { formatOplogTime, oplogTimeFromBigInt, oplogTimeToBigInt, parseMoment } from "@protocol/oplog-position";
import type { AppContext } from "../../context";
import type { AuditActor } from "../audit/service";
import { AppError, badRequest, notFound } from "../../lib/errors";
import { findBaseBackups } from "../pitr/bases";
import { describeOplogPosition } from "../pitr/gaps";
import { planPointInTime, restorableWindows } from "../pitr/restore-plan";
import { requestRestore } from "./service";

/**
 * The oplog position a moment names: "t,i" as it is; an ISO time to the second as the last
 * position of that second (every write of it included). Throws 400 for anything else.
 */
export function readMoment(at: string): bigint {
  const position = parseMoment(at);
  if (!position) {
    throw badRequest("at must be a time to the second with its zone (e.g. 2026-11-27T14:37:05Z) or an oplog position written seconds,increment.");
  }
  return oplogTimeToBigInt(position);
}

const describe = (position: bigint) => {
  const { at, ts } = describeOplogPosition(position);
  return `${at.replace(".000Z", "Z")} (${ts})`;
};

/**
 * What a restore of one of the user's databases to `at` would use: the base backup and the slices.
 * 404 for a database of another account; 422 naming the moments that can be restored when none covers `at`.
 */
export async function planRestoreToMoment(ctx: AppContext, organizationId: string, databaseId: string, at: string) {
  const until = readMoment(at);
  const [database] = await ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.id, databaseId), eq(databases.organizationId, organizationId)));
  if (!database) throw notFound("Database");
  const bases = await findBaseBackups(ctx, organizationId, database.name);
  const slices = await ctx.db
    .select()
    .from(pitrSlices)
    .where(and(eq(pitrSlices.databaseId, database.id), eq(pitrSlices.stored, true)));
  const plan = planPointInTime(bases, slices, until);
  if (!plan) throw notCovered(database.name, until, restorableWindows(bases, slices));
  return { database, until, base: plan.base.backup, baseAt: plan.base.consistentAt, slices: plan.slices };
}

function notCovered(databaseName: string, until: bigint, windows: { from: bigint; to: bigint }[]) {
  if (windows.length === 0) {
    return new AppError(
      422,
      "BAD_REQUEST",
      `"${databaseName}" cannot be restored to a point in time yet: it needs a completed point-in-time consistent backup followed by shipped oplog. Turn on point-in-time recovery and take a backup.`,
    );
  }
  const where = until < windows[0]!.from ? "before the oldest base backup" : until > windows.at(-1)!.to ? "after the newest shipped oplog" : "inside a gap";
  const ranges = windows.map(describeWindow).join(", ");
  return new AppError(422, "BAD_REQUEST", `${describe(until)} is ${where}: "${databaseName}" can be restored to a moment ${ranges}.`);
}

const isoSecond = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString().replace(".000Z", "Z");

/**
 * A window as the wizard offers it: the whole seconds it holds (an ISO time means the last
 * position of its second, so the window's last second is the one before its end's), then its
 * exact positions for the "t,i" form. A window inside one second has positions only.
 */
function describeWindow(window: { from: bigint; to: bigint }): string {
  const positions = `${describeOplogPosition(window.from).ts} to ${describeOplogPosition(window.to).ts}`;
  const first = window.from >> 32n;
  const last = (window.to >> 32n) - 1n;
  if (last < first) return `between the oplog positions ${positions}`;
  return `from ${isoSecond(first)} to ${isoSecond(last)} (oplog positions ${positions})`;
}

/**
 * The collections of `database` the base backup holds, sorted; null when its agent did not report
 * them. A collection created after the base is not among them, and may still exist at the moment:
 * the server reads no slice, so a restore's `collections` is not checked against this list; the
 * agent checks the names against the database as replayed to the moment, before changing anything.
 */
function collectionsOf(inventory: Record<string, number> | null, database: string): string[] | null {
  if (!inventory) return null;
  const prefix = `${database}.`;
  return Object.keys(inventory)
    .filter((namespace) => namespace.startsWith(prefix) && !namespace.slice(prefix.length).startsWith("system."))
    .map((namespace) => namespace.slice(prefix.length))
    .sort();
}

/** The dry run the wizard shows: the moment, the base backup (and the collections it holds) and how many slices. */
export async function describeRestorePlan(ctx: AppContext, organizationId: string, databaseId: string, at: string) {
  const plan = await planRestoreToMoment(ctx, organizationId, databaseId, at);
  return {
    databaseId: plan.database.id,
    databaseName: plan.database.name,
    until: describeOplogPosition(plan.until),
    base: { id: plan.base.id, createdAt: plan.base.createdAt.toISOString(), consistentAt: describeOplogPosition(plan.baseAt) },
    baseCollections: collectionsOf(plan.base.collections, plan.database.name),
    slices: {
      count: plan.slices.length,
      entries: plan.slices.reduce((sum, s) => sum + s.entryCount, 0),
      bytes: plan.slices.reduce((sum, s) => sum + s.size, 0),
    },
  };
}

export type PointInTimeRequest = { databaseId: string; at: string; targetDatabase?: string; collections?: string[]; confirmation: string };

/** Restores one of the user's databases to a moment: the chosen base backup, then its slices replayed up to it. */
export async function requestPointInTimeRestore(ctx: AppContext, organizationId: string, input: PointInTimeRequest, actor?: AuditActor) {
  const plan = await planRestoreToMoment(ctx, organizationId, input.databaseId, input.at);
  const until = oplogTimeFromBigInt(plan.until);
  return requestRestore(
    ctx,
    organizationId,
    plan.base.id,
    {
      databaseName: input.confirmation,
      ...(input.targetDatabase ? { targetDatabase: input.targetDatabase } : {}),
      ...(input.collections ? { collections: input.collections } : {}),
    },
    {
      record: { ts: formatOplogTime(until), at: new Date(until.t * 1000).toISOString(), sliceIds: plan.slices.map((slice) => slice.id) },
      // The moment and the plan's size only: the agent fetches the slices (pitr/agent-plan.ts).
      command: { until, plan: { slices: plan.slices.length, collections: input.collections !== undefined } },
    },
    actor,
  );
}
