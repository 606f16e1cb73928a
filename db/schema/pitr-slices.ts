import { bigint, boolean, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { createdAtColumn, idColumn } from "./columns";
import { databases } from "./databases";
import { organizations } from "./organizations";

export const sliceReasons = ["continues", "started", "rollover"] as const;
export type SliceReason = (typeof sliceReasons)[number];

/**
 * One slice of a database's shipped oplog (point-in-time recovery): what the agent said of it,
 * never its entries. Oplog positions are stored as MongoDB orders them, seconds << 32 | increment.
 * A slice covers (start_ts, end_ts]; first_ts and last_ts are the entries it holds (null: none).
 */
export const pitrSlices = pgTable(
  "pitr_slices",
  {
    id: idColumn(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    databaseId: text("database_id")
      .notNull()
      .references(() => databases.id, { onDelete: "cascade" }),
    agentId: text("agent_id").references(() => agents.id, { onDelete: "set null" }),
    /** The chain's random id (32 hex digits) and the slice's place in it. */
    chain: text("chain").notNull(),
    sequence: integer("sequence").notNull(),
    startTs: bigint("start_ts", { mode: "bigint" }).notNull(),
    endTs: bigint("end_ts", { mode: "bigint" }).notNull(),
    firstTs: bigint("first_ts", { mode: "bigint" }),
    lastTs: bigint("last_ts", { mode: "bigint" }),
    entryCount: integer("entry_count").notNull(),
    /** Bytes of the sealed file stored (counted in the storage quota). */
    size: bigint("size", { mode: "number" }).notNull(),
    sha256: text("sha256").notNull(),
    reason: text("reason", { enum: sliceReasons }).notNull(),
    /** For a chain started after a rollover: the last position shipped before it (the gap's start). */
    rolloverFromTs: bigint("rollover_from_ts", { mode: "bigint" }),
    storageKey: text("storage_key").notNull(),
    /** False while its bytes are being written: its size is reserved, its file may be missing. */
    stored: boolean("stored").notNull().default(false),
    createdAt: createdAtColumn(),
  },
  (table) => [
    uniqueIndex("pitr_slices_chain_sequence_idx").on(table.databaseId, table.chain, table.sequence),
    index("pitr_slices_database_start_idx").on(table.databaseId, table.startTs),
  ],
);
