import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count, eq } from "drizzle-orm";
import { kbArticles, kbCategories } from "@db/schema";
import { startTestServer, type TestServer } from "../../../test/harness";
import { createContext } from "../../bootstrap";
import { silentLogger } from "../../lib/logger";
import { loadSeedArticles, parseSeedArticle, SEED_AUTHOR, seedKnowledgeBase } from "./seed";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const articleCount = async () => (await server.ctx.db.select({ n: count() }).from(kbArticles))[0]!.n;

describe("the built-in articles", () => {
  const articles = loadSeedArticles();

  test("at least 12, covering all six categories, with unique slugs and orders", () => {
    expect(articles.length).toBeGreaterThanOrEqual(12);
    expect(new Set(articles.map((a) => a.category))).toEqual(new Set(kbCategories));
    expect(new Set(articles.map((a) => a.slug)).size).toBe(articles.length);
    expect(new Set(articles.map((a) => a.order)).size).toBe(articles.length);
  });

  test("are real documents: sections, tags, and links only to other built-in articles", () => {
    const slugs = new Set(articles.map((a) => a.slug));
    for (const article of articles) {
      expect(article.content.length, article.slug).toBeGreaterThan(1000);
      expect(article.content, article.slug).toMatch(/^## /m);
      expect(article.tags.length, article.slug).toBeGreaterThan(0);
      // The reader shows the title itself; a level-1 heading would repeat it.
      expect(article.content, article.slug).not.toMatch(/^# /m);
      for (const [, target] of article.content.matchAll(/\]\(\/kb\/([^)#?]+)\)/g)) {
        expect(slugs.has(target!), `${article.slug} links to /kb/${target}`).toBe(true);
      }
      // Fenced code blocks are closed.
      expect((article.content.match(/^```/gm) ?? []).length % 2, article.slug).toBe(0);
    }
  });

  test("describe the agent's real commands", () => {
    const all = articles.map((a) => a.content).join("\n");
    for (const command of [
      "dbvault-agent setup",
      "dbvault-agent run",
      "dbvault-agent db add",
      "dbvault-agent key export",
      "dbvault-agent decrypt",
      "dbvault-agent verify",
    ]) {
      expect(all).toContain(command);
    }
    expect(all).toContain("mongorestore --uri");
    expect(all).toContain(".enc.dbvault");
  });
});

describe("parseSeedArticle", () => {
  const valid = "---\ntitle: A: title with a colon\nslug: a-slug\ncategory: faq\ntags: one, two ,, three\norder: 4\n---\nBody text\n";

  test("reads the header and the body", () => {
    expect(parseSeedArticle("a.md", valid)).toEqual({
      title: "A: title with a colon",
      slug: "a-slug",
      category: "faq",
      tags: ["one", "two", "three"],
      order: 4,
      content: "Body text\n",
    });
  });

  test.each([
    ["no header", "Just text", "a.md: missing the --- header"],
    ["a missing title", valid.replace("title: A: title with a colon\n", ""), "a.md: missing title"],
    ["an unknown category", valid.replace("category: faq", "category: news"), "a.md: unknown category news"],
    ["a bad slug", valid.replace("slug: a-slug", "slug: A Slug"), "a.md: bad slug A Slug"],
    ["a bad order", valid.replace("order: 4", "order: first"), "a.md: order must be a whole number"],
    ["an empty body", valid.replace("Body text\n", "  \n"), "a.md: empty body"],
  ])("throws on %s", (_, source, message) => {
    expect(() => parseSeedArticle("a.md", source)).toThrow(message);
  });
});

describe("seedKnowledgeBase", () => {
  test("a new server starts with the built-in articles, published, once each", async () => {
    const expected = loadSeedArticles();
    const rows = await server.ctx.db.select().from(kbArticles);
    expect(rows).toHaveLength(expected.length);
    expect(rows.every((row) => row.isPublished && row.authorName === SEED_AUTHOR && row.authorId === null)).toBe(true);

    const res = await server.call("GET", "/api/kb/categories");
    expect(res.body.map((c: { _id: string }) => c._id)).toEqual([...kbCategories]);
    expect(res.body.reduce((sum: number, c: { count: number }) => sum + c.count, 0)).toBe(expected.length);

    const quickStart = await server.call("GET", "/api/kb/quick-start");
    expect(quickStart.status).toBe(200);
    expect(quickStart.body.author).toEqual({ name: SEED_AUTHOR });
    expect(quickStart.body.content).toContain("dbvault-agent setup");
  });

  test("the list shows getting-started first and search finds 'mongore' in the docs", async () => {
    const first = await server.call("GET", "/api/kb");
    expect(first.body.articles[0].slug).toBe("quick-start");
    expect(first.body.pagination.total).toBe(loadSeedArticles().length);
    const search = await server.call("GET", "/api/kb?search=mongore");
    expect(search.body.pagination.total).toBeGreaterThan(0);
    expect(search.body.articles.map((a: { slug: string }) => a.slug)).toContain("downloading-and-decrypting-a-backup");
  });

  test("a restart, or several instances starting at once, add nothing", async () => {
    const before = await articleCount();
    const restarted = await createContext(server.ctx.config, server.ctx.database, { log: silentLogger });
    restarted.mailer.close();
    await Promise.all([seedKnowledgeBase(server.ctx), seedKnowledgeBase(server.ctx)]);
    expect(await articleCount()).toBe(before);
  });

  test("articles an admin deleted or edited are not brought back", async () => {
    await server.ctx.db.delete(kbArticles).where(eq(kbArticles.slug, "faq"));
    await server.ctx.db.update(kbArticles).set({ title: "Edited" }).where(eq(kbArticles.slug, "quick-start"));
    await seedKnowledgeBase(server.ctx);
    expect((await server.call("GET", "/api/kb/faq")).status).toBe(404);
    expect((await server.call("GET", "/api/kb/quick-start")).body.title).toBe("Edited");
  });

  test("an emptied knowledge base is seeded again on the next start", async () => {
    await server.ctx.db.delete(kbArticles);
    await seedKnowledgeBase(server.ctx);
    expect(await articleCount()).toBe(loadSeedArticles().length);
  });
});
