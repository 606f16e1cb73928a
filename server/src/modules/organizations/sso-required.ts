// "SSO required": whether an account may sign in with its password. A membership rule kept here,
// below both, so that password sign-in (modules/auth) asks it without importing SSO's sign-in flow.
import { and, arrayContains, eq, isNotNull, ne } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { memberships, ssoConnections, type UserRow, users } from "@db/schema";
import { AppError } from "../../lib/errors";

/** The longest an SSO session lasts, so removing someone at the provider takes effect within it. */
export const SSO_SESSION_MAX_HOURS = 12;

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
    .where(
      and(eq(memberships.userId, user.id), eq(ssoConnections.ssoRequired, true), arrayContains(ssoConnections.verifiedDomains, [emailDomain(user.email)])),
    );
  const breakGlass = user.totpSecretCiphertext !== null && requiring.every((membership) => membership.role === "owner");
  if (requiring.length > 0 && !breakGlass) throw new AppError(403, "SSO_REQUIRED", SSO_REQUIRED_MESSAGE);
}

export const LAST_BREAK_GLASS_MESSAGE =
  "You are the only owner with two-factor sign-in of an organization that requires SSO: without it, nobody could sign in when the provider is down. Ask another owner to turn two-factor sign-in on first, or turn “SSO required” off (Settings → SSO).";

/**
 * Whether the organization has an owner with two-factor sign-in on (the break-glass), leaving
 * `exceptUserId` out: the question asked before that owner gives it up.
 */
export async function hasBreakGlassOwner(db: DbOrTx, organizationId: string, exceptUserId?: string): Promise<boolean> {
  const [owner] = await db
    .select({ id: users.id })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(
        eq(memberships.organizationId, organizationId),
        eq(memberships.role, "owner"),
        isNotNull(users.totpSecretCiphertext),
        exceptUserId ? ne(users.id, exceptUserId) : undefined,
      ),
    )
    .limit(1);
  return Boolean(owner);
}

/**
 * Refuses (409) what would leave an organization requiring SSO without a break-glass owner:
 * `userId` turning two-factor sign-in off, or no longer being an owner there.
 */
export async function refuseLosingLastBreakGlass(db: DbOrTx, userId: string, organizationIds?: string[]): Promise<void> {
  const requiring = await db
    .select({ organizationId: memberships.organizationId })
    .from(memberships)
    .innerJoin(ssoConnections, eq(ssoConnections.organizationId, memberships.organizationId))
    .where(and(eq(memberships.userId, userId), eq(memberships.role, "owner"), eq(ssoConnections.ssoRequired, true)));
  for (const { organizationId } of requiring) {
    if (organizationIds && !organizationIds.includes(organizationId)) continue;
    if (!(await hasBreakGlassOwner(db, organizationId, userId))) throw new AppError(409, "CONFLICT", LAST_BREAK_GLASS_MESSAGE);
  }
}

/**
 * The SSO connection a member signs in through: that of the organization the account is bound to
 * (`users.ssoOrganizationId`), or, for an account not bound yet, of an organization it belongs to
 * that proved its e-mail's domain; null when none.
 */
export async function ssoConnectionOf(db: DbOrTx, user: Pick<UserRow, "id" | "email" | "ssoOrganizationId">) {
  const [row] = await db
    .select({ connection: ssoConnections })
    .from(memberships)
    .innerJoin(ssoConnections, eq(ssoConnections.organizationId, memberships.organizationId))
    .where(
      and(
        eq(memberships.userId, user.id),
        arrayContains(ssoConnections.verifiedDomains, [emailDomain(user.email)]),
        user.ssoOrganizationId ? eq(ssoConnections.organizationId, user.ssoOrganizationId) : undefined,
      ),
    )
    .limit(1);
  return row?.connection ?? null;
}

export const NO_BREAK_GLASS_LEFT_MESSAGE =
  "This would leave no owner with two-factor sign-in in an organization that requires SSO: nobody could sign in when the provider is down. Make another member with two-factor sign-in an owner first, or turn “SSO required” off (Settings → SSO).";

/** Refuses (409) a membership change that left an organization requiring SSO without a break-glass owner; run inside its transaction, after the change. */
export async function refuseWithoutBreakGlass(db: DbOrTx, organizationId: string): Promise<void> {
  const [connection] = await db
    .select({ ssoRequired: ssoConnections.ssoRequired })
    .from(ssoConnections)
    .where(eq(ssoConnections.organizationId, organizationId));
  if (connection?.ssoRequired && !(await hasBreakGlassOwner(db, organizationId))) throw new AppError(409, "CONFLICT", NO_BREAK_GLASS_LEFT_MESSAGE);
}
