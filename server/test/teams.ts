// A team organization for tests, made directly in the database: the members engineer's routes
// (invitations, roles) are not what these tests are about.
import { type MemberRole, memberships, organizations, settings } from "@db/schema";
import { newApiKeyColumns } from "../src/modules/organizations/api-key";
import type { TestServer, TestUser } from "./harness";

/** Creates a team with these members and roles; answers its id and its API key. */
export async function createTeam(server: TestServer, name: string, members: { user: TestUser; role: MemberRole }[]) {
  const { apiKey, columns } = newApiKeyColumns(server.ctx);
  const [organization] = await server.ctx.db
    .insert(organizations)
    .values({ name, personal: false, ...columns })
    .returning();
  await server.ctx.db.insert(settings).values({ organizationId: organization!.id });
  for (const { user, role } of members) await server.ctx.db.insert(memberships).values({ organizationId: organization!.id, userId: user.id, role });
  return { id: organization!.id, apiKey };
}
