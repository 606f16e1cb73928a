import { and, asc, eq } from "drizzle-orm";
import { type ApiTokenScope, apiTokenScopes, apiTokens } from "@db/schema";
import type { AppContext } from "../../context";
import { badRequest, notFound } from "../../lib/errors";
import { type AuditActor, recordAudit } from "../audit/service";
import { displayPrefix, generateApiToken } from "../auth/api-tokens";

type ApiTokenRow = typeof apiTokens.$inferSelect;

const DAY_MS = 24 * 60 * 60 * 1000;

const toApiTokenView = (row: ApiTokenRow) => ({
  id: row.id,
  name: row.name,
  scopes: row.scopes,
  prefix: row.prefix,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  lastUsedFrom: row.lastUsedIp,
});

/** Creates a token for the user, acting in the organization; the token itself is answered this once (the server keeps its hash). */
export async function createApiToken(
  ctx: AppContext,
  actor: AuditActor,
  organizationId: string,
  input: { name: string; scopes: ApiTokenScope[]; expiresInDays: number },
) {
  const name = input.name.trim();
  if (!name) throw badRequest("Give the token a name that says where it is used, e.g. nightly CI.");
  // In the order of the list, once each, whatever order the client sent.
  const scopes = apiTokenScopes.filter((scope) => input.scopes.includes(scope));
  const token = generateApiToken();
  const row = await ctx.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(apiTokens)
      .values({
        userId: actor.id,
        organizationId,
        name,
        scopes,
        tokenHash: ctx.apiTokenBox.hash(token),
        prefix: displayPrefix(token),
        expiresAt: new Date(ctx.now().getTime() + input.expiresInDays * DAY_MS),
      })
      .returning();
    await recordAudit(tx, organizationId, "API_TOKEN_CREATED", { tokenId: created!.id, name, scopes, expiresAt: created!.expiresAt.toISOString() }, actor);
    return created!;
  });
  ctx.log.info("api token created", { userId: actor.id, organizationId, tokenId: row.id, scopes });
  return { ...toApiTokenView(row), token };
}

/** The user's tokens in the organization, oldest first, expired ones included (until revoked). */
export async function listApiTokens(ctx: AppContext, userId: string, organizationId: string) {
  const rows = await ctx.db
    .select()
    .from(apiTokens)
    .where(and(eq(apiTokens.userId, userId), eq(apiTokens.organizationId, organizationId)))
    .orderBy(asc(apiTokens.createdAt), asc(apiTokens.id));
  return rows.map(toApiTokenView);
}

/** Deletes one of the user's tokens: the next request with it is refused. */
export async function revokeApiToken(ctx: AppContext, actor: AuditActor, organizationId: string, tokenId: string) {
  const revoked = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .delete(apiTokens)
      .where(and(eq(apiTokens.id, tokenId), eq(apiTokens.userId, actor.id), eq(apiTokens.organizationId, organizationId)))
      .returning();
    if (!row) throw notFound("API token");
    await recordAudit(tx, organizationId, "API_TOKEN_REVOKED", { tokenId: row.id, name: row.name }, actor);
    return row;
  });
  ctx.log.info("api token revoked", { userId: actor.id, organizationId, tokenId: revoked.id });
  return { message: `Token "${revoked.name}" revoked. Requests with it are refused from now on.` };
}
