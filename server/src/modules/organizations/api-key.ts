import { eq } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { organizations } from "@db/schema";
import type { AppContext } from "../../context";
import type { CurrentOrganization } from "./current-organization";
import { roleAtLeast } from "./roles";
import { type AuditActor, recordAudit } from "../audit/service";

/**
 * A new organization's API key, as its row keeps it: sealed so an admin can reveal it, and hashed
 * for the look-up when an agent registers with it (agent-link/agent-auth.ts). Every organization,
 * personal or team, is created with one.
 */
export function newApiKeyColumns(ctx: AppContext) {
  const apiKey = ctx.apiKeys.generate();
  return { apiKey, columns: { apiKeyCiphertext: ctx.apiKeys.seal(apiKey), apiKeyHash: ctx.apiKeys.hash(apiKey) } };
}

/**
 * The API key the profile and settings pages show: the organization's, to its admins and owners
 * (who set agents up); the other roles see none.
 */
export async function apiKeyShownTo(ctx: AppContext, organization: Pick<CurrentOrganization, "id" | "role">): Promise<string> {
  return roleAtLeast(organization.role, "admin") ? revealApiKey(ctx, ctx.db, organization.id) : "";
}

/** The organization's API key in clear. */
export async function revealApiKey(ctx: AppContext, db: DbOrTx, organizationId: string): Promise<string> {
  const [row] = await db.select({ sealed: organizations.apiKeyCiphertext }).from(organizations).where(eq(organizations.id, organizationId));
  if (!row) throw new Error(`organization ${organizationId} not found`);
  return ctx.apiKeys.open(row.sealed);
}

/**
 * Gives the organization a new API key inside `tx` (Regenerate, or a password change that rotates it);
 * the old key stops registering agents at once. Agents already set up keep running: they
 * authenticate with their own id and token (see agent-link/agent-auth.ts). Returns the new key.
 */
export async function replaceApiKey(ctx: AppContext, tx: DbOrTx, organizationId: string, actor?: AuditActor): Promise<string> {
  const { apiKey, columns } = newApiKeyColumns(ctx);
  await tx.update(organizations).set(columns).where(eq(organizations.id, organizationId));
  await recordAudit(tx, organizationId, "API_KEY_REGENERATED", {}, actor);
  return apiKey;
}
