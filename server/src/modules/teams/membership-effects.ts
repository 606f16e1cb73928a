// What every membership change does besides the change itself: an audit entry naming who did it
// and with which role, and, when someone loses access or rights, the end of their open sockets.
import { eq } from "drizzle-orm";
import { type AuditAction, type MemberRole, users } from "@db/schema";
import type { DbOrTx } from "@db/client";
import type { AppContext } from "../../context";
import { endMemberAccess } from "../../lib/browser-events";
import { recordAudit } from "../audit/service";

type Change = {
  actor: { id: string; role: MemberRole };
  organization: { id: string; name: string };
  action: AuditAction;
  details?: Record<string, unknown>;
};

/**
 * Records a membership change in the organization's audit log with who did it and their role
 * there; a deleted organization's log goes with it, so its deletion is kept in the actor's own.
 */
export async function recordMembershipChange(db: DbOrTx, change: Change): Promise<void> {
  const [who] = await db.select({ name: users.name, email: users.email }).from(users).where(eq(users.id, change.actor.id));
  const log = change.action === "ORGANIZATION_DELETED" ? change.actor.id : change.organization.id;
  await recordAudit(
    db,
    log,
    change.action,
    { organizationId: change.organization.id, organization: change.organization.name, ...change.details },
    { id: change.actor.id, name: who?.name ?? "", email: who?.email ?? "", role: change.actor.role },
  );
}

/**
 * Closes a member's browser sockets open in the organization after they were removed or their role
 * changed: the guard already refuses their next request (it reads the memberships on each one),
 * and a socket opened with the old rights must not keep receiving the organization's events.
 */
export async function closeMemberSockets(ctx: AppContext, organizationId: string, userId: string): Promise<void> {
  await endMemberAccess(ctx, organizationId, userId);
}
