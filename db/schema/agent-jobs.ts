import { index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { createdAtColumn, idColumn, timestampColumn } from "./columns";
import { organizations } from "./organizations";

/**
 * The commands the ledger carries; `subject_id` is the row of the feature that owns the work: the
 * backup, the restore (a drill is one), the backup verified, the agent updated.
 */
export const agentJobKinds = ["restore", "drill", "verify", "backup", "update"] as const;
export type AgentJobKind = (typeof agentJobKinds)[number];

/**
 * queued: not acknowledged yet; leased: the agent took it into its queue (both sent again on each
 * hello until `lease_expires_at`); running: its subject started, never sent again; done and
 * failed: settled with its subject.
 */
export const agentJobStates = ["queued", "leased", "running", "done", "failed"] as const;
export type AgentJobState = (typeof agentJobStates)[number];

/**
 * The work sent to agents (modules/agent-jobs/): the server's record of each command until its
 * subject is settled. The cluster bus only says "agent X has work"; the instance holding X's
 * socket reads X's jobs here and sends them, so a command of any size, or one lost in a socket
 * swap, reaches the agent.
 */
export const agentJobs = pgTable(
  "agent_jobs",
  {
    id: idColumn(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /** Null while the job waits for an agent that can open `key_id` (a write-only agent's backup). */
    agentId: text("agent_id").references(() => agents.id, { onDelete: "cascade" }),
    keyId: text("key_id"),
    kind: text("kind", { enum: agentJobKinds }).notNull(),
    /** The restore (drill), backup (its backup or its verification) or agent (its update) this job is the command of. */
    subjectId: text("subject_id").notNull(),
    /** The command as the agent gets it, less its secrets; opaque to the ledger. */
    command: jsonb("command").$type<Record<string, unknown>>().notNull(),
    /** The command's secrets (a pasted identity, already sealed to the agent) sealed again with the server's commandBox. */
    sealed: text("sealed"),
    state: text("state", { enum: agentJobStates }).notNull().default("queued"),
    leaseExpiresAt: timestampColumn("lease_expires_at"),
    /** How many times it was sent. */
    attempts: integer("attempts").notNull().default(0),
    createdAt: createdAtColumn(),
    deliveredAt: timestampColumn("delivered_at"),
    settledAt: timestampColumn("settled_at"),
  },
  (table) => [index("agent_jobs_agent_state_idx").on(table.agentId, table.state), uniqueIndex("agent_jobs_kind_subject_idx").on(table.kind, table.subjectId)],
);
