import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAtColumn, idColumn } from "./columns";
import { memberRoles, organizations } from "./organizations";
import { users } from "./users";

export const auditActions = [
  "BACKUP_CREATED",
  "BACKUP_COMPLETED",
  "BACKUP_FAILED",
  "BACKUP_SKIPPED",
  "BACKUP_DELETED_AUTO",
  "BACKUP_DELETED_MANUAL",
  "RESTORE_REQUESTED",
  "RESTORE_INITIATED",
  "RESTORE_COMPLETED",
  "RESTORE_FAILED",
  "BACKUP_VERIFIED",
  "BACKUP_VERIFICATION_FAILED",
  "BACKUP_ANOMALY",
  "ANOMALY_RESOLVED",
  "BACKUP_KEPT",
  "BACKUP_UNKEPT",
  "BACKUP_LABELED",
  "DRILL_REQUESTED",
  "DRILL_COMPLETED",
  "DRILL_FAILED",
  "DRILL_SETTINGS_UPDATED",
  "SETTINGS_UPDATED",
  "NOTIFICATIONS_UPDATED",
  "RETENTION_UPDATED",
  "FREQUENCY_UPDATED",
  "PLAN_CHANGED",
  "API_KEY_REGENERATED",
  "PASSWORD_CHANGED",
  "EMAIL_CHANGE_REQUESTED",
  "EMAIL_CHANGED",
  "EMAIL_CHANGE_UNDONE",
  "TWO_FACTOR_ENABLED",
  "TWO_FACTOR_DISABLED",
  "RECOVERY_CODES_REGENERATED",
  "RECOVERY_CODE_USED",
  "BACKUP_PROTECTION_ON",
  "BACKUP_PROTECTION_OFF_REQUESTED",
  "BACKUP_PROTECTION_OFF_CANCELLED",
  "BACKUP_PROTECTION_OFF",
  "AGENT_REGISTERED",
  "AGENT_REREGISTERED",
  "AGENT_SETUP_APPROVED",
  "AGENT_RENAMED",
  "AGENT_DISCONNECTED",
  "AGENT_REMOVED",
  "STORAGE_LIMIT_EXCEEDED",
  "WEBHOOK_CREATED",
  "WEBHOOK_DELETED",
  "API_TOKEN_CREATED",
  "API_TOKEN_REVOKED",
  "ORGANIZATION_CREATED",
  "ORGANIZATION_RENAMED",
  "ORGANIZATION_DELETED",
  "MEMBER_INVITED",
  "INVITATION_ACCEPTED",
  "INVITATION_REVOKED",
  "MEMBER_ROLE_CHANGED",
  "MEMBER_REMOVED",
  "MEMBER_LEFT",
  "OWNERSHIP_TRANSFERRED",
  "SSO_CONFIGURED",
  "SSO_REMOVED",
  "SSO_SIGNED_IN",
  "SSO_DOMAIN_VERIFIED",
] as const;
export type AuditAction = (typeof auditActions)[number];

export const auditLogs = pgTable(
  "audit_logs",
  {
    id: idColumn(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    /**
     * Who did it, as they were then (the name and role are copied so the entry keeps them after the
     * member leaves); null for what the server or an agent did on its own (scheduled backups, retention).
     */
    actorId: text("actor_id").references(() => users.id, { onDelete: "set null" }),
    actorName: text("actor_name"),
    actorEmail: text("actor_email"),
    actorRole: text("actor_role", { enum: memberRoles }),
    action: text("action", { enum: auditActions }).notNull(),
    /** Free-form facts about the event (names, ids, type manual|auto); never secrets. */
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
    timestamp: createdAtColumn(),
  },
  (table) => [index("audit_logs_organization_time_idx").on(table.organizationId, table.timestamp)],
);
