// Binding an account to the one organization whose single sign-on may sign it in (users own the
// `users` table; sso and teams decide when, this file writes it). A binding is made once: an
// account already bound, or whose link was cut by a password reset, keeps what it has.
import { and, eq, isNull } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { users } from "@db/schema";

export type SsoLink = "domain" | "confirmed" | "invitation";

/** Binds the account to `organizationId` unless it is bound already; answers whether it did. */
export async function bindSsoOrganization(db: DbOrTx, userId: string, organizationId: string, how: SsoLink): Promise<boolean> {
  const bound = await db
    .update(users)
    .set({ ssoOrganizationId: organizationId, ssoLink: how })
    .where(and(eq(users.id, userId), isNull(users.ssoOrganizationId)))
    .returning({ id: users.id });
  return bound.length > 0;
}
