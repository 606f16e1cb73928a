import { index, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { createdAtColumn } from "./columns";
import { databases } from "./databases";

/**
 * Which of a user's agents hold a database in their config (as each last said on connecting,
 * registering or `db add`). The database's own agent_id is the one of them that runs it: it passes
 * to another declaring agent when its runner is removed or goes offline, or when the user chooses.
 */
export const agentDatabases = pgTable(
  "agent_databases",
  {
    agentId: text("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    databaseId: text("database_id")
      .notNull()
      .references(() => databases.id, { onDelete: "cascade" }),
    createdAt: createdAtColumn(),
    /** What this agent's point-in-time check found for the database (null: not reported); PitrAccess of the agent protocol. */
    pitrAccess: jsonb("pitr_access").$type<{ status: "ready" | "standalone" | "missing-roles"; missingRoles: { role: string; db: string }[] }>(),
  },
  (table) => [primaryKey({ columns: [table.agentId, table.databaseId] }), index("agent_databases_database_idx").on(table.databaseId)],
);
