import type { Server } from "bun";
import { eq } from "drizzle-orm";
import { Elysia } from "elysia";
import { type MemberRole, users } from "@db/schema";
import type { AppContext } from "../../context";
import { leastRoleOf, tokenScopeOf } from "../../lib/api-security";
import { clientIp } from "../../lib/client-ip";
import { AppError, forbidden, unauthorized } from "../../lib/errors";
import { type CurrentOrganization, currentOrganization, ORGANIZATION_HEADER } from "../organizations/current-organization";
import { ROLE_LABELS, roleAtLeast } from "../organizations/roles";
import { isApiToken, verifyApiToken } from "./api-tokens";
import { isAccountOperation, refuseAccountOperation, refuseOtherOrganization } from "./session-scope";

export type AuthenticatedUser = typeof users.$inferSelect;

/**
 * What a request's token says beyond the user: when its holder last confirmed it is them;
 * `organizationScope`, the one organization a session from single sign-on reaches;
 * `reauthenticatedIn`, the organization whose provider made that confirmation (it counts there
 * only); `apiToken`, the caller is an API token, which never stands for a signed-in person.
 */
export type SessionInfo = { reauthenticatedAt: Date | null; organizationScope?: string | null; reauthenticatedIn?: string | null; apiToken?: true };

function bearerToken(authorization: string | undefined): string | undefined {
  const match = authorization?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1];
}

export const INACTIVE_ACCOUNT_MESSAGE = "This account is inactive. Please contact support to reactivate it.";

/**
 * Why an account may not be used, or null: a ban (403 with its reason, for the banned page) or the
 * inactive status an admin set (403 INACTIVE). Sign-in, every token and a password reset ask this.
 */
export function accountRefusal(user: AuthenticatedUser): AppError | null {
  if (user.isBanned) {
    return new AppError(403, "BANNED", `Your account has been suspended. Reason: ${user.banReason ?? "No reason provided"}`, {
      isBanned: true,
      banReason: user.banReason,
      bannedAt: user.bannedAt?.toISOString() ?? null,
    });
  }
  if (user.status === "inactive") return new AppError(403, "INACTIVE", INACTIVE_ACCOUNT_MESSAGE);
  return null;
}

/**
 * The signed-in user behind a request's bearer token. Throws 401 for a missing, forged, expired
 * or superseded token (password changed since), 403 for a banned or inactive account, unless
 * `allowBanned` (signing out only takes rights away, so a banned account may still do it).
 */
export async function authenticate(ctx: AppContext, authorization: string | undefined): Promise<AuthenticatedUser> {
  return (await authenticateSession(ctx, authorization)).user;
}

/** As `authenticate`, with the session's re-authentication stamp. */
export async function authenticateSession(
  ctx: AppContext,
  authorization: string | undefined,
  options: { allowBanned?: boolean } = {},
): Promise<{ user: AuthenticatedUser; session: SessionInfo }> {
  const token = bearerToken(authorization);
  if (!token) throw unauthorized("Please sign in to continue.");
  const claims = await ctx.tokens.verify(token);
  if (!claims) throw unauthorized("Your session has expired or is invalid. Please sign in again.");
  const [user] = await ctx.db.select().from(users).where(eq(users.id, claims.sub));
  if (!user || user.tokenVersion !== claims.tv) {
    throw unauthorized("Your session has expired or is invalid. Please sign in again.");
  }
  const refused = user.isBanned && options.allowBanned ? null : accountRefusal(user);
  if (refused) throw refused;
  return {
    user,
    session: { reauthenticatedAt: claims.ra === null ? null : new Date(claims.ra * 1000), organizationScope: claims.org, reauthenticatedIn: claims.rao },
  };
}

/**
 * The organization a session acts in: the one it names, within its scope (a session from single
 * sign-on reaches its organization only, and not the account's own operations: session-scope.ts).
 * `route` is absent for the browser's socket, which makes no operation.
 */
export async function sessionOrganization(
  ctx: AppContext,
  user: AuthenticatedUser,
  session: SessionInfo,
  requested: string | undefined,
  route?: { method: string; path: string },
): Promise<CurrentOrganization> {
  const scope = session.organizationScope ?? null;
  if (scope) {
    if (route) refuseAccountOperation(route.method, route.path);
    refuseOtherOrganization(scope, requested);
  }
  return currentOrganization(ctx.db, user.id, scope ?? requested);
}

/**
 * The user behind a request: a session as `authenticateSession`, or an API token allowed the
 * route's scope (lib/api-security.ts). A token acts as its creator as the creator is now, in the
 * organization it was made in (`tokenOrganization`): a banned, inactive or deleted account's
 * tokens stop working, and the checks of each route (the admin role, the creator's role in the
 * organization, ownership) apply to the creator as to their session.
 */
async function authenticateRequest(
  ctx: AppContext,
  call: { request: Request; headers: Record<string, string | undefined>; route: string; server?: Server<unknown> | null },
  options: { allowBanned?: boolean } = {},
): Promise<{ user: AuthenticatedUser; session: SessionInfo; tokenOrganization?: string }> {
  const token = bearerToken(call.headers.authorization);
  if (!token || !isApiToken(token)) return authenticateSession(ctx, call.headers.authorization, options);
  const { userId, organizationId } = await verifyApiToken(
    ctx,
    token,
    tokenScopeOf(call.request.method, call.route),
    clientIp(ctx, call.request, call.server ?? null),
  );
  const [user] = await ctx.db.select().from(users).where(eq(users.id, userId));
  if (!user) throw unauthorized("This API token's account no longer exists.");
  const refused = accountRefusal(user);
  if (refused) throw refused;
  // A token never stands for a fresh password confirmation.
  return { user, session: { reauthenticatedAt: null, apiToken: true }, tokenOrganization: organizationId };
}

/** A request's caller, with the organization it acts in (organizations/current-organization.ts). */
type Authenticated = { user: AuthenticatedUser; session: SessionInfo; organization: CurrentOrganization };

async function authenticateInOrganization(
  ctx: AppContext,
  call: { request: Request; headers: Record<string, string | undefined>; route: string; server?: Server<unknown> | null },
  options: { allowBanned?: boolean } = {},
): Promise<Authenticated> {
  const { tokenOrganization, ...authenticated } = await authenticateRequest(ctx, call, options);
  const requested = call.headers[ORGANIZATION_HEADER] || undefined;
  // A token acts only in its own organization, and only while its creator is still a member there.
  if (tokenOrganization && requested && requested !== tokenOrganization) {
    throw forbidden("This API token acts only in the organization it was created in. Create a token there in Profile → Security → API tokens.");
  }
  const route = { method: call.request.method, path: call.route };
  const organization = tokenOrganization
    ? await currentOrganization(ctx.db, authenticated.user.id, tokenOrganization)
    : await sessionOrganization(ctx, authenticated.user, authenticated.session, requested, route);
  refuseBelowRole(organization, leastRoleOf(call.request.method, call.route));
  // A confirmation through an organization's provider counts inside that organization only, and
  // never for the account's own security: that provider's owner does not own the account.
  const { reauthenticatedIn } = authenticated.session;
  if (reauthenticatedIn && (reauthenticatedIn !== organization.id || isAccountOperation(route.method, route.path))) {
    return { ...authenticated, session: { ...authenticated.session, reauthenticatedAt: null }, organization };
  }
  return { ...authenticated, organization };
}

/** 403 when the member's role in the organization is below what the operation needs (lib/api-security.ts). */
function refuseBelowRole(organization: CurrentOrganization, least: MemberRole) {
  if (roleAtLeast(organization.role, least)) return;
  const role = ROLE_LABELS[organization.role];
  const message =
    least === "owner"
      ? `Your role (${role}) cannot do this: only an owner of ${organization.name} can.`
      : `Your role (${role}) cannot do this. Ask an owner or admin of ${organization.name} for the ${ROLE_LABELS[least]} role.`;
  throw new AppError(403, "ROLE", message, { role: organization.role, requiredRole: least });
}

// Authentication runs in the transform phase, before body and params are validated, so an
// anonymous caller learns nothing about a route's input rules; the handler then gets `user`
// and `organization`.
const authenticatedUsers = new WeakMap<Request, Authenticated>();

/**
 * Route options `{ auth: true }` and `{ admin: true }`: the handler receives `user`, the
 * account of the session or API token (`authenticateRequest`), and `organization`, the one the
 * request acts in with the user's role there; admin routes also require the server's admin role,
 * checked here on the server.
 * `{ bannedToo: true }` is `auth` that lets a banned account through (sign-out only).
 */
export const authGuard = (ctx: AppContext) =>
  new Elysia().macro({
    auth: {
      async transform(call) {
        authenticatedUsers.set(call.request, await authenticateInOrganization(ctx, call));
      },
      resolve: ({ request }) => authenticatedUsers.get(request)!,
    },
    bannedToo: {
      async transform(call) {
        authenticatedUsers.set(call.request, await authenticateInOrganization(ctx, call, { allowBanned: true }));
      },
      resolve: ({ request }) => authenticatedUsers.get(request)!,
    },
    admin: {
      async transform(call) {
        const authenticated = await authenticateInOrganization(ctx, call);
        const { user } = authenticated;
        if (user.role !== "admin") throw forbidden("This page is for administrators only.");
        if (ctx.config.requireAdminTwoFactor && !user.totpSecretCiphertext) {
          throw new AppError(
            403,
            "TWO_FACTOR_REQUIRED",
            "This server requires administrators to sign in with two factors. Turn two-factor sign-in on in Profile → Security.",
          );
        }
        authenticatedUsers.set(call.request, authenticated);
      },
      resolve: ({ request }) => authenticatedUsers.get(request)!,
    },
  });
