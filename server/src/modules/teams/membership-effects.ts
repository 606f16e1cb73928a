// What every membership change does besides the change itself: an audit entry naming who did it
// and with which role, and, when someone loses access or rights, the end of their open sockets.
import type { AuditAction, MemberRole } from "@db/schema";
import type { DbOrTx } from "@db/client";
import type { AppContext } from "../../context";
import { endBrowserSessions } from "../../lib/browser-events";
import { recordAudit } from "../audit/service";

type Change = {
  actor: { id: string; role: MemberRole | null };
  organization: { id: string; name: string };
  action: AuditAction;
  details?: Record<string, unknown>;
};

/**
 * Records a membership change in the actor's audit log, naming the organization and the actor's
 * role there (null: not a member yet, as when accepting an invitation).
 */
export async function recordMembershipChange(db: DbOrTx, change: Change): Promise<void> {
  await recordAudit(db, change.actor.id, change.action, {
    organizationId: change.organization.id,
    organization: change.organization.name,
    actorRole: change.actor.role,
    ...change.details,
  });
}

/**
 * Closes a member's open browser sockets after they were removed or their role lowered: the guard
 * already refuses their next request (it reads the memberships on each one), and the socket,
 * opened with the old rights, must not keep receiving the organization's events. Every account's
 * sockets for now: the one place to narrow it to the organization's sockets.
 */
export async function closeMemberSockets(ctx: AppContext, userId: string, reason: string): Promise<void> {
  await endBrowserSessions(ctx, userId, reason);
}
