import type { MemberRole } from "@db/schema";
import { forbidden } from "../../lib/errors";

// Each role can do everything the roles below it can (db/schema/organizations.ts says what each
// one adds), so a route names the least role it needs and the check is one comparison.
const RANK: Record<MemberRole, number> = { viewer: 0, operator: 1, admin: 2, owner: 3 };

export const roleAtLeast = (role: MemberRole, least: MemberRole) => RANK[role] >= RANK[least];

/** How a role is written in texts and the audit log. */
export const ROLE_LABELS: Record<MemberRole, string> = { owner: "Owner", admin: "Admin", operator: "Operator", viewer: "Viewer" };

/**
 * Refuses (403) a caller whose role in the organization is below `least`, saying what `action`
 * needs, so the member knows whom to ask.
 */
export function requireRole(organization: { role: MemberRole }, least: MemberRole, action: string): void {
  if (roleAtLeast(organization.role, least)) return;
  throw forbidden(
    `Your role in this organization is ${ROLE_LABELS[organization.role]}: ${action} needs ${ROLE_LABELS[least]} or above. Ask an owner of the organization.`,
  );
}
