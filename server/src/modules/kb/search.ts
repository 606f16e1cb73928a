// The public knowledge-base list: full-text search with a substring fallback, filters, facets.
//
// The documents are a few dozen articles, so the search vector is computed per query rather than
// kept in an index: a scan of the table costs well under a millisecond and needs no migration.
import { and, asc, count, desc, eq, not, type SQL, sql } from "drizzle-orm";
import { type KbCategory, kbArticles, kbCategories } from "@db/schema";
import type { AppContext } from "../../context";
import { buildExcerpt } from "./excerpt";
import type { ArticleListQuery } from "./model";

/** Articles a list page shows: three rows of the list's three-column grid. */
export const KB_PAGE_SIZE = 9;
/** Search words beyond this many are ignored by the substring fallback. */
const MAX_FALLBACK_TERMS = 8;

// Title words weigh most, then tags, then the body.
const searchVector = sql`(
  setweight(to_tsvector('english', ${kbArticles.title}), 'A') ||
  setweight(jsonb_to_tsvector('english', ${kbArticles.tags}, '["string"]'::jsonb), 'B') ||
  setweight(to_tsvector('english', ${kbArticles.content}), 'C'))`;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The words of a search for the substring fallback and excerpts: `include` must all appear,
 * `exclude` (written -word, as websearch_to_tsquery reads it) must not. Quotes, brackets and OR are dropped.
 */
export function searchTerms(search: string): { include: string[]; exclude: string[] } {
  const include: string[] = [];
  const exclude: string[] = [];
  for (const raw of search.split(/\s+/).slice(0, MAX_FALLBACK_TERMS)) {
    const negated = raw.startsWith("-");
    const word = raw.replace(/^-+/, "").replace(/["()]/g, "");
    if (word === "" || word.toLowerCase() === "or") continue;
    (negated ? exclude : include).push(word);
  }
  return { include, exclude };
}

const tagMatches = (condition: (tag: SQL) => SQL) =>
  sql`exists (select 1 from jsonb_array_elements_text(${kbArticles.tags}) as kb_tag(value) where ${condition(sql`kb_tag.value`)})`;

const likePattern = (term: string) => `%${escapeLike(term)}%`;

/** The article's title, body or one of its tags contains `term`, ignoring case. */
const containsTerm = (term: string) => {
  const pattern = likePattern(term);
  return sql`(${kbArticles.title} ilike ${pattern} or ${kbArticles.content} ilike ${pattern} or ${tagMatches((tag) => sql`${tag} ilike ${pattern}`)})`;
};

function searchConditions(search: string) {
  const query = sql`websearch_to_tsquery('english', ${search})`;
  const { include, exclude } = searchTerms(search);
  // Every word appears somewhere, as a whole word or inside one ("mongore" finds "mongorestore").
  const substring = include.length > 0 ? and(...include.map(containsTerm), ...exclude.map((term) => not(containsTerm(term))))! : sql`false`;
  const titleSubstring = include.length > 0 ? and(...include.map((term) => sql`${kbArticles.title} ilike ${likePattern(term)}`))! : sql`false`;
  return {
    matches: sql`(${searchVector} @@ ${query} or ${substring})`,
    titleRank: sql`case when to_tsvector('english', ${kbArticles.title}) @@ ${query} or ${titleSubstring} then 1 else 0 end`,
    textRank: sql`ts_rank(${searchVector}, ${query})`,
  };
}

/** One page of published articles, searched and filtered; newest first within the same order. */
export async function listPublishedArticles(ctx: AppContext, input: ArticleListQuery) {
  const search = input.search?.trim() ?? "";
  const tag = input.tag?.trim() ?? "";
  const page = input.page ?? 1;
  const conditions: SQL[] = [eq(kbArticles.isPublished, true)];
  if (input.category) conditions.push(eq(kbArticles.category, input.category as KbCategory));
  if (tag) conditions.push(tagMatches((value) => sql`lower(${value}) = lower(${tag})`));
  const ranking = search ? searchConditions(search) : null;
  if (ranking) conditions.push(ranking.matches);
  const where = and(...conditions);

  const order = [asc(kbArticles.order), desc(kbArticles.updatedAt), asc(kbArticles.id)];
  const [rows, [totals]] = await Promise.all([
    ctx.db
      .select({
        id: kbArticles.id,
        slug: kbArticles.slug,
        title: kbArticles.title,
        category: kbArticles.category,
        tags: kbArticles.tags,
        updatedAt: kbArticles.updatedAt,
        content: kbArticles.content,
      })
      .from(kbArticles)
      .where(where)
      .orderBy(...(ranking ? [desc(ranking.titleRank), desc(ranking.textRank), ...order] : order))
      .limit(KB_PAGE_SIZE)
      .offset((page - 1) * KB_PAGE_SIZE),
    ctx.db.select({ total: count() }).from(kbArticles).where(where),
  ]);
  const total = totals?.total ?? 0;
  const terms = search ? searchTerms(search).include : [];
  return {
    articles: rows.map((row) => ({
      _id: row.id,
      slug: row.slug,
      title: row.title,
      category: row.category,
      tags: row.tags,
      updatedAt: row.updatedAt.toISOString(),
      excerpt: buildExcerpt(row.content, terms),
    })),
    pagination: { total, page, pages: Math.max(1, Math.ceil(total / KB_PAGE_SIZE)), limit: KB_PAGE_SIZE },
  };
}

/** Categories that have published articles, with their counts, in the product's category order. */
export async function listCategoryCounts(ctx: AppContext) {
  const rows = await ctx.db
    .select({ _id: kbArticles.category, count: count() })
    .from(kbArticles)
    .where(eq(kbArticles.isPublished, true))
    .groupBy(kbArticles.category);
  return rows.sort((a, b) => kbCategories.indexOf(a._id) - kbCategories.indexOf(b._id));
}

/** Tags of published articles with how many articles carry each, most used first, then by name. */
export async function listTagCounts(ctx: AppContext) {
  return ctx.db
    .select({ _id: sql<string>`kb_tag.value`, count: sql<number>`count(*)::int`.mapWith(Number) })
    .from(sql`${kbArticles} cross join lateral jsonb_array_elements_text(${kbArticles.tags}) as kb_tag(value)`)
    .where(eq(kbArticles.isPublished, true))
    .groupBy(sql`kb_tag.value`)
    .orderBy(sql`count(*) desc`, sql`lower(kb_tag.value) asc`, sql`kb_tag.value asc`);
}
