import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import type { Verification } from "../../protocol/agent-protocol";
import { agents } from "./agents";
import { createdAtColumn, idColumn, timestampColumn } from "./columns";
import { databases } from "./databases";
import { organizations } from "./organizations";

export const operationStatuses = ["pending", "in-progress", "completed", "failed"] as const;
export type OperationStatus = (typeof operationStatuses)[number];
export const backupTypes = ["manual", "auto"] as const;

/**
 * The agent's proof that a stored backup reads back: it downloaded the file, decrypted and parsed
 * all of it (every chunk, every document, the archive's CRCs) and counted the documents of each
 * namespace ("db.collection"). `error` says what was wrong when the status is "failed".
 */
export type BackupVerification = Verification;

export const anomalyKinds = ["size_drop", "count_drop", "collection_missing"] as const;
export type AnomalyKind = (typeof anomalyKinds)[number];
/** A completed backup much smaller than the ones before it (see modules/verification/anomaly.ts). */
export type BackupAnomaly = { kind: AnomalyKind; detail: string };

/** Progress of a running backup or restore, as spec section 3 describes it. */
export type OperationProgress = {
  current: number;
  total: number;
  percentage: number;
  collection: string;
};

/** The longest label a backup takes (characters). */
export const BACKUP_LABEL_MAX_LENGTH = 100;

export const backupConsistencies = ["point-in-time", "standalone"] as const;
export type BackupConsistencyKind = (typeof backupConsistencies)[number];

export const backups = pgTable(
  "backups",
  {
    id: idColumn(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    databaseId: text("database_id").references(() => databases.id, { onDelete: "set null" }),
    /** Kept by value so history stays readable after the database entry is gone. */
    databaseName: text("database_name").notNull(),
    agentId: text("agent_id").references(() => agents.id, { onDelete: "set null" }),
    type: text("type", { enum: backupTypes }).notNull().default("manual"),
    status: text("status", { enum: operationStatuses }).notNull().default("pending"),
    /** Bytes of ciphertext stored. */
    size: bigint("size", { mode: "number" }).notNull().default(0),
    sha256: text("sha256"),
    /**
     * Key id (public fingerprint, 32 hex digits) of the master key the file's header names, as the
     * agent reported it at upload and after each rewrap; never the key. Null for older backups.
     */
    keyId: text("key_id"),
    /** Documents per collection ("db.collection") as the agent dumped them: names and counts only, never data. */
    collections: jsonb("collections").$type<Record<string, number>>(),
    /** The database's excluded collections when the backup started: they are not in it (a restore says so). */
    excludedCollections: jsonb("excluded_collections").$type<string[]>().notNull().default([]),
    /**
     * "point-in-time": the backup holds the database as at `consistentAt` (a replica set's dump with
     * its oplog window); "standalone": no oplog, no single moment; null: not reported (older agents).
     */
    consistency: text("consistency", { enum: backupConsistencies }),
    /** T1: the time of the dump's last oplog entry (its timestamp's seconds). */
    consistentAt: timestampColumn("consistent_at"),
    /** T1 as the oplog timestamp {t, i}: where a point-in-time restore's oplog replay starts. */
    consistentAtT: bigint("consistent_at_t", { mode: "number" }),
    consistentAtI: bigint("consistent_at_i", { mode: "number" }),
    storageKey: text("storage_key"),
    error: text("error"),
    progress: jsonb("progress").$type<OperationProgress>(),
    createdAt: createdAtColumn(),
    startedAt: timestampColumn("started_at"),
    completedAt: timestampColumn("completed_at"),
    /** Last time the agent reported progress or sent a part: a stalled backup is failed from this. */
    lastActivityAt: timestampColumn("last_activity_at"),
    /** When an agent last read the stored file back and reported on it (null: never verified). */
    verifiedAt: timestampColumn("verified_at"),
    verification: jsonb("verification").$type<BackupVerification>(),
    /**
     * Why the verification has not run yet: the backup is sealed to a write-only agent's public key
     * and no restore agent that can read it is online (or set up). Sent and cleared when one connects.
     */
    verificationWaitingFor: text("verification_waiting_for"),
    /** Set at completion when the backup is much smaller than the ones before it. */
    anomaly: jsonb("anomaly").$type<BackupAnomaly>(),
    /** When the user marked the anomaly as expected; until then retention keeps the last good backup. */
    anomalyResolvedAt: timestampColumn("anomaly_resolved_at"),
    /**
     * A failed backup whose stored data (staged parts) could not be deleted when it failed (its
     * storage was down): the scheduler deletes it later. Otherwise it would stay stored for good.
     */
    dataReleasePending: boolean("data_release_pending").notNull().default(false),
    /**
     * Kept forever: retention never deletes it (it still counts in the storage quota), and deleting
     * it by hand asks to un-keep it first. `keptBy` is the member's name, kept by value for history.
     */
    kept: boolean("kept").notNull().default(false),
    keptAt: timestampColumn("kept_at"),
    keptBy: text("kept_by"),
    /** The user's note on the backup ("before migration 42"), up to BACKUP_LABEL_MAX_LENGTH characters. */
    label: text("label"),
  },
  (table) => [
    // Serves the newest-first list (id breaks ties) without sorting.
    index("backups_organization_created_id_idx").on(table.organizationId, table.createdAt, table.id),
    index("backups_status_idx").on(table.status),
    index("backups_database_created_idx").on(table.databaseId, table.createdAt),
  ],
);

/** The stored pieces of a backup's ciphertext, in order; a backup file is their concatenation. */
export const backupParts = pgTable(
  "backup_parts",
  {
    backupId: text("backup_id")
      .notNull()
      .references(() => backups.id, { onDelete: "cascade" }),
    partNumber: integer("part_number").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    // False while the part's request runs (its size is a reservation), true once its bytes are stored.
    stored: boolean("stored").notNull().default(false),
    createdAt: createdAtColumn(),
  },
  (table) => [primaryKey({ columns: [table.backupId, table.partNumber] })],
);
