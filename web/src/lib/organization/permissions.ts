// What the current role may do, for hiding and disabling controls; the server checks every one.
// Mirrors server/src/modules/organizations/roles.ts: each role can do what the ones below can.
export type MemberRole = "owner" | "admin" | "operator" | "viewer";

const RANK: Record<MemberRole, number> = { viewer: 0, operator: 1, admin: 2, owner: 3 };

export const roleAtLeast = (role: MemberRole, least: MemberRole) => RANK[role] >= RANK[least];

export const ROLE_LABELS: Record<MemberRole, string> = { owner: "Owner", admin: "Admin", operator: "Operator", viewer: "Viewer" };

export type Permissions = {
  /** Trigger backups, restore, verify, run drills, download backup files. */
  operate: boolean;
  /** Settings, agents, API keys, webhooks, members and invitations (not owners). */
  administer: boolean;
  /** Owners: make or manage owners, transfer ownership, delete the team. */
  own: boolean;
};

/** What `role` may do; null (role not known yet) may do everything, as the one-person app always could. */
export function permissionsOf(role: MemberRole | null | undefined): Permissions {
  const at = (least: MemberRole) => !role || roleAtLeast(role, least);
  return { operate: at("operator"), administer: at("admin"), own: at("owner") };
}
