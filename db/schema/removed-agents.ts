import { pgTable, text } from "drizzle-orm/pg-core";
import { timestampColumn } from "./columns";

/**
 * Agents removed for good (by their user, an admin, or with their account or team), kept so
 * that only a removed agent presenting its own token is told it was removed (410, and it stops);
 * any other id and token, known or not, gets the same 401, so ids cannot be found by guessing.
 * No foreign key: the row outlives its organization.
 */
export const removedAgents = pgTable("removed_agents", {
  agentId: text("agent_id").primaryKey(),
  organizationId: text("organization_id").notNull(),
  /** SHA-256 of the token the agent held when it was removed (never the token). */
  tokenHash: text("token_hash").notNull(),
  removedAt: timestampColumn("removed_at").notNull().defaultNow(),
});

export type RemovedAgentRow = typeof removedAgents.$inferSelect;
