import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAtColumn, idColumn, timestampColumn } from "./columns";
import { organizations } from "./organizations";
import { AGENT_ROLES, type AgentRole } from "../../protocol/agent-protocol";

export const agentStatuses = ["active", "inactive", "offline"] as const;

/** What an agent is for: "backup", or "restore" (holds write-only agents' identity; protocol/agent-protocol.ts). */
export const agentRoles = AGENT_ROLES;
export type { AgentRole };

/**
 * Where the last "Check for Updates" got: `requested` by the user, then what the agent reports
 * (protocol/agent-protocol.ts UPDATE_STATUSES), and `updated` once it said hello as the new version.
 */
export const agentUpdateStatuses = ["requested", "waiting", "checking", "up-to-date", "installing", "restarting", "updated", "failed"] as const;

export const agents = pgTable(
  "agents",
  {
    id: idColumn(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    hostname: text("hostname"),
    platform: text("platform"),
    version: text("version"),
    /**
     * Key ids (public fingerprints) of the agent's keyring, as its last hello said: which backups
     * it can open (the restore wizard warns when it lacks a backup's key). Never a key. Null: not said.
     */
    keyIds: jsonb("key_ids").$type<string[]>(),
    /**
     * The age X25519 recipient (`age1…`) the agent's last hello said, whose private part only that
     * running agent holds: the restore wizard seals a pasted identity to it. Public. Null: not said.
     */
    identityRecipient: text("identity_recipient"),
    /** What the agent is for (agentRoles), as setup registered it and each hello says. */
    role: text("role", { enum: agentRoles }).notNull().default("backup"),
    status: text("status", { enum: agentStatuses }).notNull().default("offline"),
    lastSeen: timestampColumn("last_seen"),
    /** SHA-256 of the agent's own connection token (given at registration, replaced by a reset). */
    tokenHash: text("token_hash"),
    /** The socket currently holding this agent, so a late close of an older socket changes nothing. */
    connectionId: text("connection_id"),
    /** When the agent first connected: its databases' scheduled backups start only from then. */
    firstConnectedAt: timestampColumn("first_connected_at"),
    /** When the user was told that scheduled backups are skipped while it is offline; cleared on reconnection. */
    outageNoticeAt: timestampColumn("outage_notice_at"),
    /**
     * When its socket closed, while that disconnection is not yet announced: the audit entry and
     * the e-mail wait a grace period (a server restart closes every socket, and agents are back in
     * seconds). Cleared on reconnection and once announced.
     */
    disconnectedAt: timestampColumn("disconnected_at"),
    /** The last update's state, what the agent said about it, the version it concerns and when. */
    updateStatus: text("update_status", { enum: agentUpdateStatuses }),
    updateMessage: text("update_message"),
    updateVersion: text("update_version"),
    updateAt: timestampColumn("update_at"),
    createdAt: createdAtColumn(),
  },
  (table) => [index("agents_organization_idx").on(table.organizationId)],
);

/** An agent as stored. */
export type AgentRow = typeof agents.$inferSelect;
