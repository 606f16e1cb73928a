// A team organization for tests, with members added directly in the database: the members
// engineer's routes (invitations, roles) are not what these tests are about.
import { type MemberRole, memberships } from "@db/schema";
import { createTeamOrganization } from "../src/modules/organizations/create-team";
import type { TestServer, TestUser } from "./harness";

/** Creates a team whose first member is its owner, then the others with their roles; answers its id and API key. */
export async function createTeam(server: TestServer, name: string, members: { user: TestUser; role: MemberRole }[]) {
  const [first, ...others] = members;
  if (first?.role !== "owner") throw new Error("a team's first member is its owner");
  const { organization, apiKey } = await createTeamOrganization(server.ctx, { name, ownerId: first.user.id });
  for (const { user, role } of others) await server.ctx.db.insert(memberships).values({ organizationId: organization.id, userId: user.id, role });
  return { id: organization.id, apiKey };
}
