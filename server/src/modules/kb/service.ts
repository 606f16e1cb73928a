import { and, desc, eq, ne } from "drizzle-orm";
import { isId } from "@db/ids";
import { type KbCategory, kbArticles } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, badRequest, conflict, notFound } from "../../lib/errors";
import { type AuthenticatedUser, authenticate } from "../auth/guard";
import type { ArticleInput, ArticleUpdate } from "./model";
import { isTwoFactorRequired } from "../auth/second-factor";

export type ArticleRow = typeof kbArticles.$inferSelect;

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_TITLE_LENGTH = 200;
const MAX_SLUG_LENGTH = 120;
const SLUG_TAKEN = "An article with this slug already exists";

/** The whole article as the reader, the admin list and the editor see it. */
export function toArticleView(row: ArticleRow) {
  return {
    _id: row.id,
    id: row.id,
    title: row.title,
    slug: row.slug,
    content: row.content,
    category: row.category,
    tags: row.tags,
    isPublished: row.isPublished,
    order: row.order,
    author: row.authorName ? { name: row.authorName } : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Tags as the editor keeps them: trimmed, none empty, no duplicates (ignoring case), first spelling kept. */
export function normaliseTags(tags: string[]): string[] {
  const seen = new Set<string>();
  const result: string[] = [];
  for (const raw of tags) {
    const tag = raw.trim();
    const key = tag.toLowerCase();
    if (tag === "" || seen.has(key)) continue;
    seen.add(key);
    result.push(tag);
  }
  return result;
}

function checkTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed.length > MAX_TITLE_LENGTH) throw badRequest(`Title must be at most ${MAX_TITLE_LENGTH} characters`);
  return trimmed;
}

function checkSlug(slug: string): string {
  const trimmed = slug.trim();
  if (trimmed.length > MAX_SLUG_LENGTH) throw badRequest(`Slug must be at most ${MAX_SLUG_LENGTH} characters`);
  if (!SLUG_PATTERN.test(trimmed)) {
    throw badRequest("Slug may contain only lowercase letters, digits and single hyphens between them, e.g. installing-the-agent");
  }
  return trimmed;
}

async function ensureSlugFree(ctx: AppContext, slug: string, exceptId?: string) {
  const where = exceptId ? and(eq(kbArticles.slug, slug), ne(kbArticles.id, exceptId)) : eq(kbArticles.slug, slug);
  const [taken] = await ctx.db.select({ id: kbArticles.id }).from(kbArticles).where(where);
  if (taken) throw conflict(SLUG_TAKEN);
}

/** A unique-constraint violation (two admins saving the same slug at once), however the driver wraps it. */
function isUniqueViolation(error: unknown): boolean {
  for (let e: any = error; e; e = e.cause) {
    if (e.code === "23505") return true;
  }
  return false;
}

async function findArticle(ctx: AppContext, id: string): Promise<ArticleRow> {
  const [row] = isId(id) ? await ctx.db.select().from(kbArticles).where(eq(kbArticles.id, id)) : [];
  if (!row) throw notFound("Article");
  return row;
}

/** The signed-in admin behind an optional bearer token; anyone else (or a bad token) is a visitor. */
async function optionalAdmin(ctx: AppContext, authorization: string | undefined): Promise<AuthenticatedUser | null> {
  if (!authorization) return null;
  try {
    const user = await authenticate(ctx, authorization);
    // As the admin guard (auth/guard.ts): an admin the server requires two factors of, without them, is not one yet.
    return user.role === "admin" && !(isTwoFactorRequired(ctx, user) && !user.totpSecretCiphertext) ? user : null;
  } catch (error) {
    // A refused token (expired, forged, banned) reads as a visitor; a database failure does not.
    if (error instanceof AppError) return null;
    throw error;
  }
}

/** One article by slug: published ones for everybody, drafts only for an admin's bearer token. */
export async function getArticleBySlug(ctx: AppContext, slug: string, authorization: string | undefined) {
  const [row] = await ctx.db.select().from(kbArticles).where(eq(kbArticles.slug, slug));
  if (!row || (!row.isPublished && !(await optionalAdmin(ctx, authorization)))) throw notFound("Article");
  return toArticleView(row);
}

/** Every article, drafts included, most recently updated first (the admin list's default order). */
export async function listAllArticles(ctx: AppContext) {
  const rows = await ctx.db.select().from(kbArticles).orderBy(desc(kbArticles.updatedAt), desc(kbArticles.id));
  return rows.map(toArticleView);
}

/** Creates an article written by `admin`. Throws 400 on a malformed slug or title, 409 on a taken slug. */
export async function createArticle(ctx: AppContext, admin: AuthenticatedUser, input: ArticleInput) {
  const slug = checkSlug(input.slug);
  await ensureSlugFree(ctx, slug);
  const now = ctx.now();
  try {
    const [row] = await ctx.db
      .insert(kbArticles)
      .values({
        title: checkTitle(input.title),
        slug,
        content: input.content,
        category: (input.category as KbCategory | undefined) ?? "getting-started",
        tags: normaliseTags(input.tags ?? []),
        isPublished: input.isPublished ?? true,
        order: input.order ?? 0,
        authorId: admin.id,
        authorName: admin.name,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    ctx.log.info("kb article created", { articleId: row!.id, adminId: admin.id });
    return toArticleView(row!);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(SLUG_TAKEN);
    throw error;
  }
}

/** Applies the fields sent (a publish toggle or the whole article) and stamps updatedAt. */
export async function updateArticle(ctx: AppContext, admin: AuthenticatedUser, id: string, input: ArticleUpdate) {
  const current = await findArticle(ctx, id);
  const changes: Partial<ArticleRow> = { updatedAt: ctx.now() };
  if (input.title !== undefined) changes.title = checkTitle(input.title);
  if (input.slug !== undefined) {
    changes.slug = checkSlug(input.slug);
    if (changes.slug !== current.slug) await ensureSlugFree(ctx, changes.slug, current.id);
  }
  if (input.content !== undefined) changes.content = input.content;
  if (input.category !== undefined) changes.category = input.category as KbCategory;
  if (input.tags !== undefined) changes.tags = normaliseTags(input.tags);
  if (input.isPublished !== undefined) changes.isPublished = input.isPublished;
  if (input.order !== undefined) changes.order = input.order;
  try {
    const [row] = await ctx.db.update(kbArticles).set(changes).where(eq(kbArticles.id, current.id)).returning();
    if (!row) throw notFound("Article");
    ctx.log.info("kb article updated", { articleId: row.id, adminId: admin.id });
    return toArticleView(row);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(SLUG_TAKEN);
    throw error;
  }
}

export async function deleteArticle(ctx: AppContext, admin: AuthenticatedUser, id: string) {
  const [row] = isId(id) ? await ctx.db.delete(kbArticles).where(eq(kbArticles.id, id)).returning({ id: kbArticles.id }) : [];
  if (!row) throw notFound("Article");
  ctx.log.info("kb article deleted", { articleId: row.id, adminId: admin.id });
  return { message: "Article deleted" };
}
