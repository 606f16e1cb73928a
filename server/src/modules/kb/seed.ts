import { type KbCategory, kbArticles, kbCategories } from "@db/schema";
import type { AppContext } from "../../context";
import { articleFiles } from "./articles";
import { SLUG_PATTERN } from "./service";

export const SEED_AUTHOR = "DBVault Team";

export type SeedArticle = { title: string; slug: string; category: KbCategory; tags: string[]; order: number; content: string };

/**
 * Reads one seed article: a header between `---` lines holding `title`, `slug`, `category`,
 * `tags` (comma-separated) and `order`, then the markdown body. Throws on a missing or bad field,
 * so a broken article fails the tests rather than the first start of a server.
 */
export function parseSeedArticle(file: string, source: string): SeedArticle {
  const match = source.match(/^---\r?\n([\s\S]*?)\r?\n---\r?\n([\s\S]*)$/);
  if (!match) throw new Error(`${file}: missing the --- header`);
  const fields = new Map<string, string>();
  for (const line of match[1]!.split(/\r?\n/)) {
    const separator = line.indexOf(":");
    if (separator > 0) fields.set(line.slice(0, separator).trim(), line.slice(separator + 1).trim());
  }
  const field = (name: string) => {
    const value = fields.get(name);
    if (!value) throw new Error(`${file}: missing ${name}`);
    return value;
  };
  const category = field("category") as KbCategory;
  if (!kbCategories.includes(category)) throw new Error(`${file}: unknown category ${category}`);
  const slug = field("slug");
  if (!SLUG_PATTERN.test(slug)) throw new Error(`${file}: bad slug ${slug}`);
  const order = Number(field("order"));
  if (!Number.isInteger(order)) throw new Error(`${file}: order must be a whole number`);
  const content = match[2]!.trim();
  if (content === "") throw new Error(`${file}: empty body`);
  const tags = field("tags")
    .split(",")
    .map((tag) => tag.trim())
    .filter((tag) => tag !== "");
  return { title: field("title"), slug, category, tags, order, content: `${content}\n` };
}

/** The articles a new installation starts with, from the markdown files in ./articles. */
export function loadSeedArticles(): SeedArticle[] {
  return Object.entries(articleFiles).map(([file, source]) => parseSeedArticle(file, source));
}

/**
 * Publishes the built-in articles on first start, when the knowledge base is empty. Safe to run
 * on every start and from several instances at once: a non-empty table is left alone, and
 * articles whose slug another instance inserted first are skipped.
 */
export async function seedKnowledgeBase(ctx: AppContext) {
  const [existing] = await ctx.db.select({ id: kbArticles.id }).from(kbArticles).limit(1);
  if (existing) return;
  const now = ctx.now();
  const inserted = await ctx.db
    .insert(kbArticles)
    .values(loadSeedArticles().map((article) => ({ ...article, isPublished: true, authorName: SEED_AUTHOR, createdAt: now, updatedAt: now })))
    .onConflictDoNothing({ target: kbArticles.slug })
    .returning({ id: kbArticles.id });
  if (inserted.length > 0) ctx.log.info("knowledge base seeded", { articles: inserted.length });
}
