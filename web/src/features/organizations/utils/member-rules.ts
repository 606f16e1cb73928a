// Which controls Settings → Team offers for a member, by the caller's role (the server's rules,
// server/src/modules/teams/members.ts, decide; these only keep impossible buttons away).
import { type MemberRole, roleAtLeast } from "../../../lib/organization/permissions";

export const MEMBER_ROLES: readonly MemberRole[] = ["owner", "admin", "operator", "viewer"];

/** The roles the caller may give: admins up to admin, owners any. */
export function assignableRoles(callerRole: MemberRole): MemberRole[] {
  if (callerRole === "owner") return [...MEMBER_ROLES];
  if (callerRole === "admin") return MEMBER_ROLES.filter((role) => role !== "owner");
  return [];
}

/** Whether the caller may change or remove a member with `memberRole` (never themselves: they leave). */
export function canManageMember(callerRole: MemberRole, memberRole: MemberRole, isSelf: boolean): boolean {
  if (isSelf || !roleAtLeast(callerRole, "admin")) return false;
  return memberRole !== "owner" || callerRole === "owner";
}
