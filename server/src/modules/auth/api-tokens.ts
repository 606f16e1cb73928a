import { randomBytes } from "node:crypto";
import { asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { type ApiTokenScope, apiTokens } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, unauthorized } from "../../lib/errors";

// API tokens carry their own prefix, so the auth guard tells them from session tokens (JWTs), the
// account's API key (dbv_) and agents' tokens (dbvt_) without trying each.
const TOKEN_PREFIX = "dbvp_";

/** A new random API token as shown, once, to its creator. */
export const generateApiToken = () => `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;

export const isApiToken = (bearer: string) => bearer.startsWith(TOKEN_PREFIX);

/** How much of a token the list shows so its owner can tell tokens apart: the prefix and 4 characters. */
export const displayPrefix = (token: string) => token.slice(0, TOKEN_PREFIX.length + 4);

// Every request through a token would otherwise write the row; a minute is precise enough to
// tell a token in use from a forgotten one.
const LAST_USED_PRECISION_MS = 60_000;

const MANAGE_HINT = "Profile → Security → API tokens";

/**
 * The creator behind an API token, allowed to call an operation that needs `scope` (undefined:
 * the operation refuses tokens). 401 for an unknown (revoked) or expired token, 403 TOKEN_SCOPE
 * for a scope the token lacks. What the creator may do is the caller's to check (auth/guard.ts).
 */
export async function verifyApiToken(
  ctx: AppContext,
  token: string,
  scope: ApiTokenScope | undefined,
  clientAddress: string,
): Promise<{ userId: string; organizationId: string }> {
  const [row] = await ctx.db
    .select()
    .from(apiTokens)
    .where(eq(apiTokens.tokenHash, ctx.apiTokenBox.hash(token)));
  if (!row) throw unauthorized(`This API token is not valid: it was revoked or never existed. Create a new one in ${MANAGE_HINT}.`);
  const now = ctx.now();
  if (row.expiresAt <= now) throw unauthorized(`This API token expired on ${row.expiresAt.toISOString()}. Create a new one in ${MANAGE_HINT}.`);
  if (!scope) throw new AppError(403, "TOKEN_SCOPE", "API tokens cannot be used for this. Sign in to DBVault to do it.");
  if (!row.scopes.includes(scope)) {
    throw new AppError(403, "TOKEN_SCOPE", `This API token lacks the "${scope}" scope. Create a token with it in ${MANAGE_HINT}.`, { scope });
  }
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_PRECISION_MS || row.lastUsedIp !== clientAddress) {
    await ctx.db.update(apiTokens).set({ lastUsedAt: now, lastUsedIp: clientAddress }).where(eq(apiTokens.id, row.id));
  }
  return { userId: row.userId, organizationId: row.organizationId };
}

/** Every API token of the account, in every organization, for the security e-mail. */
export const accountApiTokens = (db: DbOrTx, userId: string) =>
  db
    .select({
      name: apiTokens.name,
      prefix: apiTokens.prefix,
      organizationId: apiTokens.organizationId,
      lastUsedAt: apiTokens.lastUsedAt,
      lastUsedIp: apiTokens.lastUsedIp,
    })
    .from(apiTokens)
    .where(eq(apiTokens.userId, userId))
    .orderBy(asc(apiTokens.createdAt));

/** Revokes every API token of the account (after a password reset, or when its owner asks): answers how many. */
export async function revokeAccountApiTokens(db: DbOrTx, userId: string): Promise<number> {
  return (await db.delete(apiTokens).where(eq(apiTokens.userId, userId)).returning({ id: apiTokens.id })).length;
}
