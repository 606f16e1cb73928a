import { and, count, eq, isNotNull, lte, sql, sum } from "drizzle-orm";
import { type AuditAction, agents, auditLogs, backups, databases, pitrSlices } from "@db/schema";
import { collectDefaultMetrics, Counter, type Metric, Registry } from "prom-client";
import type { Db } from "@db/client";
import { ReplicatedStorage, type Storage } from "../../storage";
import { freshPitrLag } from "../databases/lag-figure";

/** What the metrics read: the database, the clock (so tests can move it) and the backup storage. */
type MetricsSource = { db: Db; now: () => Date; storage?: Storage };

/** Upper bounds (seconds) of the backup-duration histogram's buckets: a minute to a few hours. */
export const DURATION_BUCKETS = [10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400];

type Sample = { value: number; labels?: Record<string, string | number>; metricName?: string };
type Collected = { name: string; help: string; type: "counter" | "gauge" | "histogram"; values: Sample[]; aggregator: "sum" };

/**
 * A metric read from the database at each scrape. Facts that must hold across every server
 * instance (backups, restores, agents, the schedule) live in the database, so each instance
 * reports the same global figure; Prometheus should take one instance's value (max), not the sum.
 */
function databaseMetric(name: string, help: string, type: Collected["type"], read: () => Promise<Sample[]>): Metric {
  return { name, help, type, get: async (): Promise<Collected> => ({ name, help, type, aggregator: "sum", values: await read() }) } as unknown as Metric;
}

/** Counts of audit entries by action: the audit log keeps one per finished operation. */
async function countAuditActions(ctx: MetricsSource, byStatus: Record<string, AuditAction>) {
  const rows = await ctx.db
    .select({ action: auditLogs.action, total: count() })
    .from(auditLogs)
    .where(
      sql`${auditLogs.action} in (${sql.join(
        Object.values(byStatus).map((a) => sql`${a}`),
        sql`, `,
      )})`,
    )
    .groupBy(auditLogs.action);
  return Object.entries(byStatus).map(([status, action]) => ({ labels: { status }, value: rows.find((r) => r.action === action)?.total ?? 0 }));
}

/**
 * The Prometheus registry of one server instance: the service's figures from the database,
 * this process's upload traffic, and the process metrics (memory, CPU, event loop).
 */
export function createMetrics(ctx: MetricsSource) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const uploadedBytes = new Counter({
    name: "dbvault_upload_bytes_total",
    help: "Bytes of backup parts this instance received and stored.",
    registers: [registry],
  });

  registry.registerMetric(
    databaseMetric("dbvault_backups_total", "Backups finished, by status (from the audit log; every instance reports the same figure).", "counter", () =>
      countAuditActions(ctx, { completed: "BACKUP_COMPLETED", failed: "BACKUP_FAILED" }),
    ),
  );
  registry.registerMetric(
    databaseMetric("dbvault_restores_total", "Restores finished, by status (from the audit log).", "counter", () =>
      countAuditActions(ctx, { completed: "RESTORE_COMPLETED", failed: "RESTORE_FAILED" }),
    ),
  );
  registry.registerMetric(
    databaseMetric("dbvault_verifications_total", "Stored backups read back and checked by their agent, by result (from the audit log).", "counter", () =>
      countAuditActions(ctx, { ok: "BACKUP_VERIFIED", failed: "BACKUP_VERIFICATION_FAILED" }),
    ),
  );
  registry.registerMetric(
    databaseMetric("dbvault_drills_total", "Restore drills (test restores into a scratch database) finished, by status (from the audit log).", "counter", () =>
      countAuditActions(ctx, { completed: "DRILL_COMPLETED", failed: "DRILL_FAILED" }),
    ),
  );
  registry.registerMetric(
    databaseMetric("dbvault_backup_bytes_stored", "Bytes of completed backups in storage.", "gauge", async () => {
      const [row] = await ctx.db
        .select({ bytes: sum(backups.size) })
        .from(backups)
        .where(eq(backups.status, "completed"));
      return [{ value: Number(row?.bytes ?? 0) }];
    }),
  );
  registry.registerMetric(
    databaseMetric("dbvault_pitr_slices_total", "Oplog slices stored for point-in-time recovery.", "counter", async () => {
      const [row] = await ctx.db.select({ total: count() }).from(pitrSlices).where(eq(pitrSlices.stored, true));
      return [{ value: row?.total ?? 0 }];
    }),
  );
  registry.registerMetric(
    databaseMetric(
      "dbvault_pitr_lag_seconds",
      "How far behind each database with point-in-time recovery on its shipped oplog is: the lag its agent reported with its last heartbeat, or, without a recent one, now minus the end of its newest stored slice (by database id).",
      "gauge",
      async () => {
        // end_ts holds the oplog timestamp, seconds << 32 | increment: its seconds are a wall-clock time.
        const rows = await ctx.db
          .select({
            databaseId: databases.id,
            pitrLagSeconds: databases.pitrLagSeconds,
            pitrLagReportedAt: databases.pitrLagReportedAt,
            coveredUntil: sql<string | null>`max(${pitrSlices.endTs}) >> 32`,
          })
          .from(databases)
          .leftJoin(pitrSlices, and(eq(pitrSlices.databaseId, databases.id), eq(pitrSlices.stored, true)))
          .where(and(eq(databases.pitrEnabled, true), eq(databases.isActive, true)))
          .groupBy(databases.id);
        const now = ctx.now();
        return rows.flatMap((row) => {
          const reported = freshPitrLag(row, now);
          if (reported !== undefined) return [{ labels: { database: row.databaseId }, value: reported }];
          if (row.coveredUntil === null) return [];
          return [{ labels: { database: row.databaseId }, value: Math.max(0, Math.round(now.getTime() / 1000 - Number(row.coveredUntil))) }];
        });
      },
    ),
  );
  registry.registerMetric(
    databaseMetric("dbvault_agents_connected", "Agents whose socket is open (status active).", "gauge", async () => {
      const [row] = await ctx.db.select({ total: count() }).from(agents).where(eq(agents.status, "active"));
      return [{ value: row?.total ?? 0 }];
    }),
  );
  registry.registerMetric(
    databaseMetric("dbvault_scheduler_lag_seconds", "How late the most overdue scheduled backup is (0 when none is due).", "gauge", async () => {
      const now = ctx.now();
      const [row] = await ctx.db
        .select({ oldest: sql<string | null>`min(${databases.nextBackupAt})` })
        .from(databases)
        .innerJoin(agents, eq(agents.id, databases.agentId))
        .where(and(eq(databases.isActive, true), isNotNull(agents.firstConnectedAt), lte(databases.nextBackupAt, now)));
      const oldest = row?.oldest ? new Date(row.oldest).getTime() : now.getTime();
      return [{ value: Math.max(0, (now.getTime() - oldest) / 1000) }];
    }),
  );
  registry.registerMetric(
    databaseMetric(
      "dbvault_backup_duration_seconds",
      "Time from a backup's start to its completion, for the completed backups in storage.",
      "histogram",
      async () => {
        const seconds = sql<number>`extract(epoch from (${backups.completedAt} - coalesce(${backups.startedAt}, ${backups.createdAt})))`;
        const [row] = await ctx.db
          .select({
            total: count(),
            sum: sql<string | null>`sum(${seconds})`,
            buckets: sql<string>`json_build_array(${sql.join(
              DURATION_BUCKETS.map((le) => sql`count(*) filter (where ${seconds} <= ${le})`),
              sql`, `,
            )})`,
          })
          .from(backups)
          .where(and(eq(backups.status, "completed"), isNotNull(backups.completedAt)));
        const buckets = (typeof row?.buckets === "string" ? JSON.parse(row.buckets) : (row?.buckets ?? [])) as number[];
        const name = "dbvault_backup_duration_seconds";
        return [
          ...DURATION_BUCKETS.map((le, i) => ({ metricName: `${name}_bucket`, labels: { le }, value: Number(buckets[i] ?? 0) })),
          { metricName: `${name}_bucket`, labels: { le: "+Inf" }, value: row?.total ?? 0 },
          { metricName: `${name}_sum`, value: Number(row?.sum ?? 0) },
          { metricName: `${name}_count`, value: row?.total ?? 0 },
        ];
      },
    ),
  );

  if (ctx.storage instanceof ReplicatedStorage) registerReplicaMetrics(registry, ctx.storage);

  return {
    registry,
    /** Called as each part's bytes are stored. */
    countUploadedBytes: (bytes: number) => uploadedBytes.inc(bytes),
    /** The exposition text for a scrape. */
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}

/**
 * STORAGE_REPLICA_URL: writes one side missed while the other held them (this instance, since it
 * started), and the objects each side lacks as the last repair pass found them.
 */
function registerReplicaMetrics(registry: Registry, storage: ReplicatedStorage) {
  const instanceMetric = (name: string, help: string, type: Collected["type"], read: () => Sample[]): Metric =>
    ({ name, help, type, get: async (): Promise<Collected> => ({ name, help, type, aggregator: "sum", values: read() }) }) as unknown as Metric;
  registry.registerMetric(
    instanceMetric(
      "dbvault_storage_replica_failures_total",
      "Storage operations one side (primary or replica) failed while the other held, on this instance since it started, by side and operation.",
      "counter",
      () => {
        const counted = storage.failures();
        // Both sides' put always shown, so an alert can compare against 0 before the first failure.
        for (const side of ["primary", "replica"] as const) {
          if (!counted.some((entry) => entry.side === side && entry.operation === "put")) counted.push({ side, operation: "put", count: 0 });
        }
        return counted.map(({ side, operation, count }) => ({ labels: { side, operation }, value: count }));
      },
    ),
  );
  registry.registerMetric(
    instanceMetric(
      "dbvault_storage_replica_missing_objects",
      "Objects one side of the replicated storage lacks (writes it missed since the last repair pass, or what that pass could not copy), by side.",
      "gauge",
      () => Object.entries(storage.missingCounts()).map(([side, value]) => ({ labels: { side }, value })),
    ),
  );
}

export type Metrics = ReturnType<typeof createMetrics>;
