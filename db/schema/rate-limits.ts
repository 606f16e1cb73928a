import { integer, pgTable, text } from "drizzle-orm/pg-core";
import { timestampColumn } from "./columns";

/**
 * Rate-limit counters, one row per key (e.g. `login-pair:<email>|<address>`), kept in the database
 * so every server instance counts against the same limit. Rows idle for a day are swept.
 */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  count: integer("count").notNull(),
  windowStartedAt: timestampColumn("window_started_at").notNull(),
  lastHitAt: timestampColumn("last_hit_at").notNull(),
});
