import { bigint, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { backups } from "./backups";
import { createdAtColumn, timestampColumn } from "./columns";

export const backupCopyStatuses = ["stored", "failed"] as const;
export type BackupCopyStatus = (typeof backupCopyStatuses)[number];

/**
 * Where the agent copied a backup file besides DBVault's storage: the customer's own bucket
 * (`dbvault-agent copies add`). Only what the agent reported: the destination's label (bucket,
 * prefix, endpoint: never a credential, those stay on the customer's machine), the object key,
 * its size and SHA-256, and whether the copy was written.
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
    error: text("error"),
    createdAt: createdAtColumn(),
    updatedAt: timestampColumn("updated_at").notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.backupId, table.destination] })],
);
