import { eq } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { users } from "@db/schema";
import type { AppContext } from "../../context";
import { recordAudit } from "../audit/service";

/**
 * Gives the user a new API key inside `tx` (Regenerate, or a password change that rotates it);
 * the old key stops registering agents at once. Agents already set up keep running: they
 * authenticate with their own id and token (see agent-link/agent-auth.ts). Returns the new key.
 */
export async function replaceApiKey(ctx: AppContext, tx: DbOrTx, userId: string): Promise<string> {
  const apiKey = ctx.apiKeys.generate();
  await tx
    .update(users)
    .set({ apiKeyCiphertext: ctx.apiKeys.seal(apiKey), apiKeyHash: ctx.apiKeys.hash(apiKey), updatedAt: ctx.now() })
    .where(eq(users.id, userId));
  await recordAudit(tx, userId, "API_KEY_REGENERATED");
  return apiKey;
}
