import { and, count, desc, eq } from "drizzle-orm";
import { type AuditAction, auditActions, auditLogs } from "@db/schema";
import type { Db, DbOrTx } from "@db/client";

export const AUDIT_PAGE_SIZE = 20;

/** Appends one entry to a user's audit log. `details` must never hold secrets. */
export async function recordAudit(db: DbOrTx, userId: string, action: AuditAction, details: Record<string, unknown> = {}) {
  await db.insert(auditLogs).values({ userId, action, details });
}

/** One page of a user's audit log, newest first, optionally only one action. */
export async function listAuditLogs(db: Db, input: { userId: string; page: number; action: AuditAction | null }) {
  const where = input.action ? and(eq(auditLogs.userId, input.userId), eq(auditLogs.action, input.action)) : eq(auditLogs.userId, input.userId);
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
    logs: rows.map((row) => ({
      _id: row.id,
      id: row.id,
      timestamp: row.timestamp.toISOString(),
      action: row.action,
      details: row.details,
    })),
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
