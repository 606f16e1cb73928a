import { eq } from "drizzle-orm";
import { Elysia } from "elysia";
import { users } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, forbidden, unauthorized } from "../../lib/errors";

export type AuthenticatedUser = typeof users.$inferSelect;

function bearerToken(authorization: string | undefined): string | undefined {
  const match = authorization?.match(/^Bearer\s+(\S+)$/i);
  return match?.[1];
}

/**
 * The signed-in user behind a request's bearer token. Throws 401 for a missing, forged, expired
 * or superseded token (password changed since), 403 with the reason for a banned account unless
 * `allowBanned` (signing out only takes rights away, so a banned account may still do it).
 */
export async function authenticate(ctx: AppContext, authorization: string | undefined, options: { allowBanned?: boolean } = {}): Promise<AuthenticatedUser> {
  const token = bearerToken(authorization);
  if (!token) throw unauthorized("Please sign in to continue.");
  const claims = await ctx.tokens.verify(token);
  if (!claims) throw unauthorized("Your session has expired or is invalid. Please sign in again.");
  const [user] = await ctx.db.select().from(users).where(eq(users.id, claims.sub));
  if (!user || user.tokenVersion !== claims.tv) {
    throw unauthorized("Your session has expired or is invalid. Please sign in again.");
  }
  if (user.isBanned && !options.allowBanned) {
    throw new AppError(403, "BANNED", `Your account has been suspended. Reason: ${user.banReason ?? "No reason provided"}`, {
      isBanned: true,
      banReason: user.banReason,
      bannedAt: user.bannedAt?.toISOString() ?? null,
    });
  }
  return user;
}

// Authentication runs in the transform phase, before body and params are validated, so an
// anonymous caller learns nothing about a route's input rules; the handler then gets `user`.
const authenticatedUsers = new WeakMap<Request, AuthenticatedUser>();

/**
 * Route options `{ auth: true }` and `{ admin: true }`: the handler receives `user`, the
 * authenticated account; admin routes also require the admin role, checked here on the server.
 * `{ bannedToo: true }` is `auth` that lets a banned account through (sign-out only).
 */
export const authGuard = (ctx: AppContext) =>
  new Elysia().macro({
    auth: {
      async transform({ request, headers }) {
        authenticatedUsers.set(request, await authenticate(ctx, headers.authorization));
      },
      resolve: ({ request }) => ({ user: authenticatedUsers.get(request)! }),
    },
    bannedToo: {
      async transform({ request, headers }) {
        authenticatedUsers.set(request, await authenticate(ctx, headers.authorization, { allowBanned: true }));
      },
      resolve: ({ request }) => ({ user: authenticatedUsers.get(request)! }),
    },
    admin: {
      async transform({ request, headers }) {
        const user = await authenticate(ctx, headers.authorization);
        if (user.role !== "admin") throw forbidden("This page is for administrators only.");
        if (ctx.config.requireAdminTwoFactor && !user.totpSecretCiphertext) {
          throw new AppError(
            403,
            "TWO_FACTOR_REQUIRED",
            "This server requires administrators to sign in with two factors. Turn two-factor sign-in on in Profile → Security.",
          );
        }
        authenticatedUsers.set(request, user);
      },
      resolve: ({ request }) => ({ user: authenticatedUsers.get(request)! }),
    },
  });
