import { bigint, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { backups } from "./backups";
import { createdAtColumn, timestampColumn } from "./columns";

/**
 * stored: written and, when last checked, there as written. failed: never written. missing and
 * changed: the daily check (`dbvault-agent copies check`) found it gone, or other bytes there.
 */
export const backupCopyStatuses = ["stored", "failed", "missing", "changed"] as const;
export type BackupCopyStatus = (typeof backupCopyStatuses)[number];

/**
 * Where the agent copied a backup file besides DBVault's storage: the customer's own bucket
 * (`dbvault-agent copies add`). Only what the agent reported: the destination's label (bucket,
 * prefix, endpoint: never a credential, those stay on the customer's machine), the object key,
 * its size, SHA-256 and ETag, whether the copy was written, and what the last check found.
 */
export const backupCopies = pgTable(
  "backup_copies",
  {
    backupId: text("backup_id")
      .notNull()
      .references(() => backups.id, { onDelete: "cascade" }),
    destination: text("destination").notNull(),
    key: text("key").notNull(),
    status: text("status", { enum: backupCopyStatuses }).notNull(),
    size: bigint("size", { mode: "number" }),
    sha256: text("sha256"),
    /** The ETag the bucket answered once the copy was written; the check's HEAD compares it. Null for older agents. */
    etag: text("etag"),
    error: text("error"),
    /** When the agent last looked at the copy (its write counts as the first check). */
    checkedAt: timestampColumn("checked_at"),
    /** The first check of the current run of checks that could not reach the bucket; null once it answers. */
    unreachableSince: timestampColumn("unreachable_since"),
    /** When that run was raised as copy.unreachable (once a run); null until then. */
    unreachableAlertedAt: timestampColumn("unreachable_alerted_at"),
    /** The S3 Object Lock retention the copy was written with (`copies add --object-lock`); null: not locked. */
    lockedUntil: timestampColumn("locked_until"),
    createdAt: createdAtColumn(),
    updatedAt: timestampColumn("updated_at").notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.backupId, table.destination] })],
);
