import { eq } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { organizations } from "@db/schema";
import type { AppContext } from "../../context";
import { newApiKeyColumns } from "../organizations/api-key";
import { type AuditActor, recordAudit } from "../audit/service";

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
