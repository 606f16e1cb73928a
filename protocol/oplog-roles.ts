// How the roles point-in-time recovery needs are named to people: by the agent's setup and
// restores, and by the server when it refuses turning the feature on.

/** A built-in role on a database ("admin" for the cluster-wide ones). */
export type RoleGrant = { role: string; db: string };

/** "backup, restore and readWrite on shop": built-in roles of admin by name alone. */
export function describeMissingRoles(roles: RoleGrant[]): string {
  const names = roles.map((grant) => (grant.db === "admin" ? grant.role : `${grant.role} on ${grant.db}`));
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** The mongosh command granting `roles` to `user` (unknown: USER in admin, for the reader to fill in). */
export function describeGrant(user: { user: string; db: string } | undefined, roles: RoleGrant[]): string {
  const who = user ?? { user: "USER", db: "admin" };
  const list = roles.map((grant) => `{ role: "${grant.role}", db: ${JSON.stringify(grant.db)} }`).join(", ");
  return `db.getSiblingDB(${JSON.stringify(who.db)}).grantRolesToUser(${JSON.stringify(who.user)}, [${list}])`;
}
