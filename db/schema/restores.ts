import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import type { DrillReport } from "../../protocol/agent-protocol";
import { agents } from "./agents";
import { backups, operationStatuses, type OperationProgress } from "./backups";
import { createdAtColumn, idColumn, timestampColumn } from "./columns";
import { organizations } from "./organizations";

/** A restore replaces data; a drill restores into a scratch database, checks it and drops it. */
export const restoreKinds = ["restore", "drill"] as const;
export type RestoreKind = (typeof restoreKinds)[number];

/** What a drill found, as the agent reported it (protocol/agent-protocol.ts). */
export type { DrillReport };

/** What a point-in-time restore records of the moment it restores to. */
export type RestorePointInTime = { ts: string; at: string; sliceIds: string[] };

export const restores = pgTable(
  "restores",
  {
    id: idColumn(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    backupId: text("backup_id").references(() => backups.id, { onDelete: "set null" }),
    /** The backup's database (the source). */
    databaseName: text("database_name").notNull(),
    /** Where the backup is restored when not over its own database ("restore as a copy", another agent's database). */
    targetDatabase: text("target_database"),
    /** Only these collections of the backup; null means all of them. */
    collections: jsonb("collections").$type<string[]>(),
    agentId: text("agent_id").references(() => agents.id, { onDelete: "set null" }),
    status: text("status", { enum: operationStatuses }).notNull().default("pending"),
    progress: jsonb("progress").$type<OperationProgress>(),
    error: text("error"),
    createdAt: createdAtColumn(),
    completedAt: timestampColumn("completed_at"),
    lastActivityAt: timestampColumn("last_activity_at"),
    /** Documents restored and failed per collection, as the agent reported them. */
    stats: jsonb("stats").$type<Record<string, { restored: number; failed: number }>>(),
    kind: text("kind", { enum: restoreKinds }).notNull().default("restore"),
    /** A drill's findings (null for restores, and for drills that failed before the checks). */
    drill: jsonb("drill").$type<DrillReport>(),
    /**
     * A point-in-time restore: the moment chosen (oplog position "t,i" and its seconds as a time)
     * and the slices sent, which its agent may then download. Null for a backup restored as it is.
     */
    pointInTime: jsonb("point_in_time").$type<RestorePointInTime>(),
    /**
     * Why a pending restore or drill has not gone to an agent yet: the backup is sealed to a
     * write-only agent's public key and no restore agent that can read it is online. Sent (and
     * cleared) when one connects; null once an agent has it.
     */
    waitingFor: text("waiting_for"),
  },
  (table) => [index("restores_organization_created_idx").on(table.organizationId, table.createdAt)],
);
