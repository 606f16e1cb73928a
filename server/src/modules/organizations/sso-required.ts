// "SSO required": whether an account may sign in with its password. A membership rule kept here,
// below both, so that password sign-in (modules/auth) asks it without importing SSO's sign-in flow.
import { and, arrayContains, eq } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { memberships, ssoConnections, type UserRow } from "@db/schema";
import { AppError } from "../../lib/errors";

export const SSO_REQUIRED_MESSAGE =
  "Your organization requires single sign-on: use “Sign in with SSO” on the sign-in page with your work e-mail. Owners with two-factor sign-in on can still sign in with their password and code.";

/** The domain of an e-mail address, lowercased. */
export const emailDomain = (email: string) => email.slice(email.lastIndexOf("@") + 1).toLowerCase();

/**
 * Refuses (403 SSO_REQUIRED) a password sign-in of a member of an organization that requires SSO
 * for their e-mail's domain. The break-glass: an owner with two-factor sign-in on still passes
 * (the code is then asked as always), so a provider that is down never locks every owner out.
 */
export async function refusePasswordWhereSsoRequired(db: DbOrTx, user: UserRow): Promise<void> {
  const requiring = await db
    .select({ role: memberships.role })
    .from(memberships)
    .innerJoin(ssoConnections, eq(ssoConnections.organizationId, memberships.organizationId))
    .where(and(eq(memberships.userId, user.id), eq(ssoConnections.ssoRequired, true), arrayContains(ssoConnections.allowedDomains, [emailDomain(user.email)])));
  const breakGlass = user.totpSecretCiphertext !== null && requiring.every((membership) => membership.role === "owner");
  if (requiring.length > 0 && !breakGlass) throw new AppError(403, "SSO_REQUIRED", SSO_REQUIRED_MESSAGE);
}
