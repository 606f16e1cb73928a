import { bigint, boolean, integer, jsonb, numeric, pgTable, text } from "drizzle-orm/pg-core";
import { createdAtColumn, idColumn } from "./columns";

export type PlanFeature = { text: string };

export const plans = pgTable("plans", {
  id: idColumn(),
  name: text("name").notNull().unique(),
  /** US dollars per month; 0 is a free plan, the only kind a client may switch to itself. */
  price: numeric("price", { precision: 10, scale: 2, mode: "number" }).notNull().default(0),
  popular: boolean("popular").notNull().default(false),
  storageLimit: bigint("storage_limit", { mode: "number" }).notNull(),
  dbLimit: integer("db_limit").notNull(),
  /** Longest retention a user of this plan may choose, in hours. */
  retentionLimit: integer("retention_limit").notNull(),
  /** Shortest interval between backups, in hours (1 = hourly allowed). */
  frequencyLimit: integer("frequency_limit").notNull(),
  /** How far back point-in-time recovery reaches, in hours; 0: the plan does not offer it. */
  pitrWindowHours: integer("pitr_window_hours").notNull().default(0),
  features: jsonb("features").$type<PlanFeature[]>().notNull().default([]),
  sortOrder: integer("sort_order").notNull().default(0),
  createdAt: createdAtColumn(),
});
