import { and, count, desc, eq } from "drizzle-orm";
import { type AuditAction, auditActions, auditLogs, type MemberRole } from "@db/schema";
import type { Db, DbOrTx } from "@db/client";

export const AUDIT_PAGE_SIZE = 20;

/** Who did what an entry records, with their role in the organization then. */
export type AuditActor = { id: string; name: string; email: string; role: MemberRole };

/** The member acting in a request (`user` and `organization` as the auth guard hands them). */
export const actorOf = (user: { id: string; name: string; email: string }, organization: { role: MemberRole }): AuditActor => ({
  id: user.id,
  name: user.name,
  email: user.email,
  role: organization.role,
});

/**
 * Appends one entry to an organization's audit log. `details` must never hold secrets. `actor` is
 * the member who did it; none for what the server or an agent did on its own.
 */
export async function recordAudit(db: DbOrTx, organizationId: string, action: AuditAction, details: Record<string, unknown> = {}, actor?: AuditActor) {
  await db.insert(auditLogs).values({
    organizationId,
    action,
    details,
    ...(actor ? { actorId: actor.id, actorName: actor.name, actorEmail: actor.email, actorRole: actor.role } : {}),
  });
}

/** An audit entry as the API shows it, in the list and in the export. */
export function toAuditView(row: typeof auditLogs.$inferSelect) {
  return {
    _id: row.id,
    id: row.id,
    timestamp: row.timestamp.toISOString(),
    action: row.action,
    details: row.details,
    // Who did it and as what role; null for what the server or an agent did on its own.
    actor: row.actorRole ? { id: row.actorId, name: row.actorName, email: row.actorEmail, role: row.actorRole } : null,
  };
}

/** Entries of an organization's audit log, newest first: `action` alone or all. */
export const auditWhere = (organizationId: string, action: AuditAction | null) =>
  action ? and(eq(auditLogs.organizationId, organizationId), eq(auditLogs.action, action))! : eq(auditLogs.organizationId, organizationId);

/** One page of an organization's audit log, newest first, optionally only one action. */
export async function listAuditLogs(db: Db, input: { organizationId: string; page: number; action: AuditAction | null }) {
  const where = auditWhere(input.organizationId, input.action);
  const [rows, [counted]] = await Promise.all([
    db
      .select()
      .from(auditLogs)
      .where(where)
      .orderBy(desc(auditLogs.timestamp), desc(auditLogs.id))
      .limit(AUDIT_PAGE_SIZE)
      .offset((input.page - 1) * AUDIT_PAGE_SIZE),
    db.select({ total: count() }).from(auditLogs).where(where),
  ]);
  const total = counted?.total ?? 0;
  return {
    logs: rows.map(toAuditView),
    pagination: {
      total,
      page: input.page,
      pages: Math.max(1, Math.ceil(total / AUDIT_PAGE_SIZE)),
      limit: AUDIT_PAGE_SIZE,
    },
  };
}

/** Every action an audit entry can carry, for the log page's filter. */
export function listAuditActions(): readonly AuditAction[] {
  return auditActions;
}
