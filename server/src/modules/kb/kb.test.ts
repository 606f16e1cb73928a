import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { kbArticles } from "@db/schema";
import { advanceServerClock, startTestServer, type TestServer, type TestUser } from "../../../test/harness";

let server: TestServer;
let admin: TestUser;
let user: TestUser;
let counter = 0;

beforeAll(async () => {
  server = await startTestServer();
  // These tests manage their own articles; the built-in ones are covered by seed.test.ts.
  await server.ctx.db.delete(kbArticles);
  admin = await server.registerAdmin();
  user = await server.registerUser();
});
afterAll(() => server.close());

const uniqueSlug = (prefix = "article") => `${prefix}-${Date.now().toString(36)}-${++counter}`;

async function createArticle(fields: Record<string, unknown> = {}) {
  const res = await server.call("POST", "/api/kb", {
    token: admin.token,
    body: { title: "How to back up", slug: uniqueSlug(), content: "## Steps\n\nRun the agent.", ...fields },
  });
  expect(res.status).toBe(201);
  return res.body;
}

const ARTICLE_KEYS = ["_id", "author", "category", "content", "createdAt", "id", "isPublished", "order", "slug", "tags", "title", "updatedAt"];

describe("POST /api/kb", () => {
  test("creates an article with the spec's defaults and the admin as author", async () => {
    const slug = uniqueSlug("defaults");
    const res = await server.call("POST", "/api/kb", {
      token: admin.token,
      body: { title: "  Getting going  ", slug, content: "# Hello\n\nWorld" },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(ARTICLE_KEYS);
    expect(res.body).toMatchObject({
      title: "Getting going",
      slug,
      content: "# Hello\n\nWorld",
      category: "getting-started",
      tags: [],
      isPublished: true,
      order: 0,
      author: { name: admin.name },
    });
    expect(res.body._id).toMatch(/^[0-9a-f]{24}$/);
    expect(res.body.createdAt).toBe(res.body.updatedAt);

    const read = await server.call("GET", `/api/kb/${slug}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
  });

  test("keeps every field sent, with tags trimmed, non-empty and without duplicates", async () => {
    const article = await createArticle({
      category: "troubleshooting",
      tags: [" mongodump ", "Backup", "", "   ", "mongodump", "backup", "agent"],
      isPublished: false,
      order: 7,
    });
    expect(article).toMatchObject({ category: "troubleshooting", tags: ["mongodump", "Backup", "agent"], isPublished: false, order: 7 });
  });

  test("ignores fields the editor sends along that are not the article's to set", async () => {
    const article = await createArticle({ _id: "0".repeat(24), createdAt: "2000-01-01T00:00:00.000Z", author: { name: "Mallory" } });
    expect(article._id).not.toBe("0".repeat(24));
    expect(article.author).toEqual({ name: admin.name });
    expect(article.createdAt).not.toStartWith("2000");
  });

  test.each([
    [{}, "Title is required"],
    [{ title: "   ", slug: "ok-slug", content: "text" }, "Title is required"],
    [{ title: 42, slug: "ok-slug", content: "text" }, "Title is required"],
    [{ title: "Title", content: "text" }, "Slug is required"],
    [{ title: "Title", slug: " \t", content: "text" }, "Slug is required"],
    [{ title: "Title", slug: "ok-slug" }, "Content is required"],
    [{ title: "Title", slug: "ok-slug", content: "\n  \n" }, "Content is required"],
    [
      { title: "Title", slug: "ok-slug", content: "text", category: "news" },
      "category must be one of getting-started, setup, usage, troubleshooting, faq, security",
    ],
    [{ title: "Title", slug: "ok-slug", content: "text", tags: "agent" }, "tags must be a list of at most 30 texts"],
    [{ title: "Title", slug: "ok-slug", content: "text", tags: Array.from({ length: 31 }, (_, i) => `t${i}`) }, "tags must be a list of at most 30 texts"],
    [{ title: "Title", slug: "ok-slug", content: "text", tags: ["x".repeat(51)] }, "A tag must be at most 50 characters"],
    [{ title: "Title", slug: "ok-slug", content: "text", isPublished: "yes" }, "isPublished must be true or false"],
    [{ title: "Title", slug: "ok-slug", content: "text", order: 1.5 }, "order must be a whole number"],
    [{ title: "x".repeat(201), slug: "ok-slug", content: "text" }, "Title must be at most 200 characters"],
  ])("rejects %j with %p", async (body, message) => {
    const res = await server.call("POST", "/api/kb", { token: admin.token, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message, code: "BAD_REQUEST" });
  });

  test.each(["Has Spaces", "UPPER-case", "double--hyphen", "-leading", "trailing-", "under_score", "émigré"])("refuses the malformed slug %p", async (slug) => {
    const res = await server.call("POST", "/api/kb", { token: admin.token, body: { title: "T", slug, content: "text" } });
    expect(res.status).toBe(400);
    expect(res.body.message).toStartWith("Slug may contain only lowercase letters, digits and single hyphens");
  });

  test("a slug already in use answers 409 and creates nothing", async () => {
    const first = await createArticle();
    const again = await server.call("POST", "/api/kb", {
      token: admin.token,
      body: { title: "Another", slug: first.slug, content: "other" },
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: "An article with this slug already exists", code: "CONFLICT" });
    const all = await server.call("GET", "/api/kb/admin/all", { token: admin.token });
    expect(all.body.filter((a: { slug: string }) => a.slug === first.slug)).toHaveLength(1);
  });

  test("only admins may create: anonymous 401, a user 403", async () => {
    const body = { title: "Sneaky", slug: uniqueSlug("sneaky"), content: "text" };
    const anonymous = await server.call("POST", "/api/kb", { body });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe("UNAUTHORIZED");
    const plain = await server.call("POST", "/api/kb", { token: user.token, body });
    expect(plain.status).toBe(403);
    expect(plain.body).toEqual({ message: "This page is for administrators only.", code: "FORBIDDEN" });
    expect((await server.call("GET", `/api/kb/${body.slug}`, { token: admin.token })).status).toBe(404);
  });
});

describe("PUT /api/kb/:id", () => {
  test("the list's publish toggle changes only isPublished and moves updatedAt", async () => {
    const article = await createArticle({ category: "faq", tags: ["one"], order: 3 });
    advanceServerClock(server, 1000); // the update's updatedAt must differ from the creation's
    const res = await server.call("PUT", `/api/kb/${article._id}`, { token: admin.token, body: { isPublished: false } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...article, isPublished: false, updatedAt: res.body.updatedAt });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.parse(article.updatedAt));
    expect(res.body.createdAt).toBe(article.createdAt);
  });

  test("the editor's whole article replaces every field, whatever else it carries", async () => {
    const article = await createArticle();
    const newSlug = uniqueSlug("renamed");
    const res = await server.call("PUT", `/api/kb/${article._id}`, {
      token: admin.token,
      body: {
        ...article,
        title: "Renamed",
        slug: newSlug,
        content: "New body",
        category: "security",
        tags: ["key", " key ", "vault"],
        isPublished: false,
        order: -2,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      _id: article._id,
      title: "Renamed",
      slug: newSlug,
      content: "New body",
      category: "security",
      tags: ["key", "vault"],
      isPublished: false,
      order: -2,
      author: article.author,
    });
    expect((await server.call("GET", `/api/kb/${article.slug}`, { token: admin.token })).status).toBe(404);
    expect((await server.call("GET", `/api/kb/${newSlug}`, { token: admin.token })).body.title).toBe("Renamed");
  });

  test("keeping its own slug is fine; taking another article's is a 409", async () => {
    const a = await createArticle();
    const b = await createArticle();
    const same = await server.call("PUT", `/api/kb/${a._id}`, { token: admin.token, body: { slug: a.slug, title: "Same slug" } });
    expect(same.status).toBe(200);
    const taken = await server.call("PUT", `/api/kb/${a._id}`, { token: admin.token, body: { slug: b.slug } });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toBe("An article with this slug already exists");
  });

  test.each([
    [{ title: "" }, "Title is required"],
    [{ slug: "  " }, "Slug is required"],
    [{ content: "" }, "Content is required"],
    [{ category: "other" }, "category must be one of getting-started, setup, usage, troubleshooting, faq, security"],
    [{}, "Send at least one of title, slug, content, category, tags, isPublished or order"],
    [{ _id: "x" }, "Send at least one of title, slug, content, category, tags, isPublished or order"],
  ])("validates %j with %p", async (body, message) => {
    const article = await createArticle();
    const res = await server.call("PUT", `/api/kb/${article._id}`, { token: admin.token, body });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  test("a malformed slug is refused", async () => {
    const article = await createArticle();
    const res = await server.call("PUT", `/api/kb/${article._id}`, { token: admin.token, body: { slug: "Not A Slug" } });
    expect(res.status).toBe(400);
    expect(res.body.message).toStartWith("Slug may contain only");
  });

  test("an unknown id answers 404", async () => {
    for (const id of ["0123456789abcdef01234567", "not-an-id"]) {
      const res = await server.call("PUT", `/api/kb/${id}`, { token: admin.token, body: { isPublished: true } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: "Article not found.", code: "NOT_FOUND" });
    }
  });

  test("only admins may update", async () => {
    const article = await createArticle();
    expect((await server.call("PUT", `/api/kb/${article._id}`, { body: { isPublished: false } })).status).toBe(401);
    expect((await server.call("PUT", `/api/kb/${article._id}`, { token: user.token, body: { isPublished: false } })).status).toBe(403);
    expect((await server.call("GET", `/api/kb/${article.slug}`)).body.isPublished).toBe(true);
  });
});

describe("DELETE /api/kb/:id", () => {
  test("deletes the article; it is gone for everyone", async () => {
    const article = await createArticle();
    const res = await server.call("DELETE", `/api/kb/${article._id}`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: "Article deleted" });
    expect((await server.call("GET", `/api/kb/${article.slug}`, { token: admin.token })).status).toBe(404);
    const again = await server.call("DELETE", `/api/kb/${article._id}`, { token: admin.token });
    expect(again.status).toBe(404);
    expect(again.body.message).toBe("Article not found.");
  });

  test("only admins may delete", async () => {
    const article = await createArticle();
    expect((await server.call("DELETE", `/api/kb/${article._id}`)).status).toBe(401);
    expect((await server.call("DELETE", `/api/kb/${article._id}`, { token: user.token })).status).toBe(403);
    expect((await server.call("GET", `/api/kb/${article.slug}`)).status).toBe(200);
  });
});

describe("GET /api/kb/:slug", () => {
  test("an unknown slug answers 404 with a clear message", async () => {
    const res = await server.call("GET", "/api/kb/no-such-article");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "Article not found.", code: "NOT_FOUND" });
  });

  test("a draft is hidden from visitors, users and bad tokens, and shown to admins", async () => {
    const draft = await createArticle({ isPublished: false });
    const path = `/api/kb/${draft.slug}`;
    expect((await server.call("GET", path)).status).toBe(404);
    expect((await server.call("GET", path, { token: user.token })).status).toBe(404);
    expect((await server.call("GET", path, { token: "not.a.token" })).status).toBe(404);
    const asAdmin = await server.call("GET", path, { token: admin.token });
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.body).toMatchObject({ _id: draft._id, isPublished: false });
  });

  test("an article whose slug is a route word still cannot shadow the fixed routes", async () => {
    const categories = await createArticle({ slug: "categories", category: "faq" });
    const tags = await createArticle({ slug: "tags" });
    const list = await server.call("GET", "/api/kb/categories");
    expect(Array.isArray(list.body)).toBe(true);
    expect((await server.call("GET", "/api/kb/tags")).body).toBeArray();
    expect((await server.call("GET", "/api/kb/admin/all", { token: admin.token })).body).toBeArray();
    for (const article of [categories, tags]) {
      await server.call("DELETE", `/api/kb/${article._id}`, { token: admin.token });
    }
  });
});

describe("GET /api/kb/admin/all", () => {
  test("lists every article, drafts included, as full objects, most recently updated first", async () => {
    const draft = await createArticle({ isPublished: false, title: "Draft for the list" });
    advanceServerClock(server, 1000); // the two articles' updatedAt must differ to have an order
    const published = await createArticle({ title: "Published for the list" });
    const res = await server.call("GET", "/api/kb/admin/all", { token: admin.token });
    expect(res.status).toBe(200);
    const ids = res.body.map((a: { _id: string }) => a._id);
    expect(ids).toContain(draft._id);
    expect(ids.indexOf(published._id)).toBeLessThan(ids.indexOf(draft._id));
    expect(Object.keys(res.body[0]).sort()).toEqual(ARTICLE_KEYS);
    const updated = res.body.map((a: { updatedAt: string }) => a.updatedAt);
    expect(updated).toEqual([...updated].sort().reverse());
  });

  test("anonymous 401, a user 403", async () => {
    expect((await server.call("GET", "/api/kb/admin/all")).status).toBe(401);
    const res = await server.call("GET", "/api/kb/admin/all", { token: user.token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("FORBIDDEN");
  });
});
