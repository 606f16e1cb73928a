import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { kbArticles } from "@db/schema";
import { advanceServerClock, startTestServer, type TestServer, type TestUser } from "../../../test/harness";
import { KB_PAGE_SIZE } from "./search";

let server: TestServer;
let admin: TestUser;

type Entry = { _id: string; slug: string; title: string; category: string; tags: string[]; updatedAt: string; excerpt: string };

// Published unless said otherwise. Careful: the substring fallback means words in one article's
// text must not occur inside another's by accident.
const fixtures = [
  {
    title: "Restoring with mongorestore",
    slug: "restoring-with-mongorestore",
    category: "usage",
    tags: ["restore", "cli"],
    order: 1,
    content: "## Steps\n\nDownload the file, then run `mongorestore --archive=dump.archive --drop` to bring the data back.",
  },
  {
    title: "Installing the agent",
    slug: "installing-the-agent",
    category: "setup",
    tags: ["agent", "install"],
    order: 0,
    content: "# Install\n\nCopy the binary to **/usr/local/bin** and start it with systemd.\n\n```sh\nsudo systemctl enable --now dbvault-agent\n```",
  },
  {
    title: "Encryption keys",
    slug: "encryption-keys",
    category: "security",
    tags: ["encryption", "agent", "zeppelin"],
    order: 2,
    content:
      "Every backup is sealed with your master key. Without the master key no restore is possible, so keep a copy in a password manager and another copy offline in a safe place.",
  },
  {
    title: "Secret draft about mongorestore",
    slug: "secret-draft",
    category: "usage",
    tags: ["restore", "draft-only"],
    order: 0,
    isPublished: false,
    content: "Unreleased notes.",
  },
  ...Array.from({ length: 10 }, (_, i) => ({
    title: `Bulk question ${i + 1}`,
    slug: `bulk-question-${i + 1}`,
    category: "faq",
    tags: ["bulk"],
    order: 10,
    content: `Answer number ${i + 1} for the bulk questions.`,
  })),
];
const PUBLISHED = fixtures.filter((f) => f.isPublished !== false).length;

async function list(query = ""): Promise<{ articles: Entry[]; pagination: { total: number; page: number; pages: number } }> {
  const res = await server.call("GET", `/api/kb${query}`);
  expect(res.status).toBe(200);
  return res.body;
}
const slugsOf = (body: { articles: Entry[] }) => body.articles.map((a) => a.slug);

beforeAll(async () => {
  server = await startTestServer();
  await server.ctx.db.delete(kbArticles);
  admin = await server.registerAdmin();
  for (const fixture of fixtures) {
    const res = await server.call("POST", "/api/kb", { token: admin.token, body: fixture });
    expect(res.status).toBe(201);
  }
  // Same order, different ages: bulk-question-1 becomes the most recently updated of the bulk.
  const all = await server.call("GET", "/api/kb/admin/all", { token: admin.token });
  const first = all.body.find((a: { slug: string }) => a.slug === "bulk-question-1");
  advanceServerClock(server, 1000); // this update's updatedAt must come after the others'
  expect((await server.call("PUT", `/api/kb/${first._id}`, { token: admin.token, body: { order: 10 } })).status).toBe(200);
});
afterAll(() => server.close());

describe("GET /api/kb without a search", () => {
  test("lists published articles by order, then most recently updated, 9 per page", async () => {
    expect(KB_PAGE_SIZE).toBe(9);
    const page1 = await list();
    expect(page1.pagination).toEqual({ total: PUBLISHED, page: 1, pages: 2, limit: 9 } as never);
    expect(slugsOf(page1)).toHaveLength(9);
    expect(slugsOf(page1).slice(0, 4)).toEqual(["installing-the-agent", "restoring-with-mongorestore", "encryption-keys", "bulk-question-1"]);
    expect(slugsOf(page1)).not.toContain("secret-draft");

    const page2 = await list("?page=2");
    expect(page2.pagination).toMatchObject({ total: PUBLISHED, page: 2, pages: 2 });
    expect(slugsOf(page2)).toHaveLength(PUBLISHED - 9);
    expect(new Set([...slugsOf(page1), ...slugsOf(page2)]).size).toBe(PUBLISHED);

    const beyond = await list("?page=3");
    expect(beyond.articles).toEqual([]);
    expect(beyond.pagination).toMatchObject({ total: PUBLISHED, page: 3, pages: 2 });
  });

  test("entries carry exactly the list fields, with a plain-text excerpt", async () => {
    const { articles } = await list();
    const entry = articles.find((a) => a.slug === "installing-the-agent")!;
    expect(Object.keys(entry).sort()).toEqual(["_id", "category", "excerpt", "slug", "tags", "title", "updatedAt"]);
    expect(entry).toMatchObject({ title: "Installing the agent", category: "setup", tags: ["agent", "install"] });
    expect(entry.excerpt).toBe("Copy the binary to /usr/local/bin and start it with systemd.");
    expect(new Date(entry.updatedAt).toISOString()).toBe(entry.updatedAt);
  });

  test("empty parameters mean no filter", async () => {
    const body = await list("?search=&category=&tag=");
    expect(body.pagination.total).toBe(PUBLISHED);
  });

  test.each([
    ["?page=0", "page must be a whole number from 1"],
    ["?page=abc", "page must be a whole number from 1"],
    ["?page=1.5", "page must be a whole number from 1"],
    ["?category=news", "category must be one of getting-started, setup, usage, troubleshooting, faq, security, or empty"],
    [`?search=${"a".repeat(201)}`, "search must be at most 200 characters"],
  ])("%s is refused with %p", async (query, message) => {
    const res = await server.call("GET", `/api/kb${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message, code: "BAD_REQUEST" });
  });
});

describe("GET /api/kb?search=", () => {
  test("full text search stems words and ranks title matches first; drafts never appear", async () => {
    const body = await list("?search=restoring");
    // "restoring" matches "Restoring" in A's title and "restore" in C's body.
    expect(slugsOf(body)).toEqual(["restoring-with-mongorestore", "encryption-keys"]);
    expect(body.pagination).toMatchObject({ total: 2, page: 1, pages: 1 });
  });

  test("a title match outranks a body or tag match", async () => {
    const body = await list("?search=agent");
    expect(slugsOf(body)[0]).toBe("installing-the-agent");
    expect(slugsOf(body)).toContain("encryption-keys");
  });

  test("a partial word finds the whole word", async () => {
    expect(slugsOf(await list("?search=mongore"))).toEqual(["restoring-with-mongorestore"]);
    expect(slugsOf(await list("?search=systemc"))).toEqual(["installing-the-agent"]);
    expect(slugsOf(await list("?search=MONGORE"))).toEqual(["restoring-with-mongorestore"]);
  });

  test("tags are searched too", async () => {
    expect(slugsOf(await list("?search=zeppelin"))).toEqual(["encryption-keys"]);
    expect(slugsOf(await list("?search=zeppel"))).toEqual(["encryption-keys"]);
  });

  test("several words must all match; quotes and minus work as in a web search", async () => {
    expect(slugsOf(await list("?search=master%20key"))).toEqual(["encryption-keys"]);
    expect(slugsOf(await list("?search=%22password%20manager%22"))).toEqual(["encryption-keys"]);
    expect(slugsOf(await list("?search=master%20mongorestore"))).toEqual([]);
    expect(slugsOf(await list("?search=restore%20-mongorestore"))).toEqual(["encryption-keys"]);
  });

  test("LIKE wildcards and query syntax in the search are taken literally", async () => {
    for (const search of ["%", "_", "100%", "\\", "a:b & c | !d", "()"]) {
      const res = await server.call("GET", `/api/kb?search=${encodeURIComponent(search)}`);
      expect(res.status).toBe(200);
      expect(res.body.pagination.total).toBe(0);
    }
  });

  test("the excerpt shows the text around the match", async () => {
    const { articles } = await list("?search=offline");
    expect(articles).toHaveLength(1);
    expect(articles[0]!.excerpt).toStartWith("…");
    expect(articles[0]!.excerpt).toContain("offline in a safe place");
  });

  test("results are paginated", async () => {
    const page1 = await list("?search=bulk");
    expect(page1.pagination).toEqual({ total: 10, page: 1, pages: 2, limit: 9 } as never);
    expect(page1.articles).toHaveLength(9);
    const page2 = await list("?search=bulk&page=2");
    expect(page2.articles).toHaveLength(1);
  });
});

describe("GET /api/kb filters", () => {
  test("by category, leaving drafts out", async () => {
    expect(slugsOf(await list("?category=security"))).toEqual(["encryption-keys"]);
    expect(slugsOf(await list("?category=usage"))).toEqual(["restoring-with-mongorestore"]);
    expect((await list("?category=getting-started")).pagination).toMatchObject({ total: 0, pages: 1 });
  });

  test("by tag, ignoring case, leaving drafts out", async () => {
    expect(slugsOf(await list("?tag=agent"))).toEqual(["installing-the-agent", "encryption-keys"]);
    expect(slugsOf(await list("?tag=AGENT"))).toEqual(["installing-the-agent", "encryption-keys"]);
    expect((await list("?tag=draft-only")).articles).toEqual([]);
    expect((await list("?tag=agen")).articles).toEqual([]);
  });

  test("filters and search combine", async () => {
    expect(slugsOf(await list("?tag=agent&category=setup"))).toEqual(["installing-the-agent"]);
    expect(slugsOf(await list("?tag=agent&search=master"))).toEqual(["encryption-keys"]);
    expect(slugsOf(await list("?category=faq&search=restore"))).toEqual([]);
  });
});

describe("GET /api/kb/categories and /api/kb/tags", () => {
  test("categories count published articles only, in the product's category order", async () => {
    const res = await server.call("GET", "/api/kb/categories");
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { _id: "setup", count: 1 },
      { _id: "usage", count: 1 },
      { _id: "faq", count: 10 },
      { _id: "security", count: 1 },
    ]);
  });

  test("tags count published articles only, most used first, then by name", async () => {
    const res = await server.call("GET", "/api/kb/tags");
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { _id: "bulk", count: 10 },
      { _id: "agent", count: 2 },
      { _id: "cli", count: 1 },
      { _id: "encryption", count: 1 },
      { _id: "install", count: 1 },
      { _id: "restore", count: 1 },
      { _id: "zeppelin", count: 1 },
    ]);
  });

  test("publishing a draft changes the counts", async () => {
    const all = await server.call("GET", "/api/kb/admin/all", { token: admin.token });
    const draft = all.body.find((a: { slug: string }) => a.slug === "secret-draft");
    await server.call("PUT", `/api/kb/${draft._id}`, { token: admin.token, body: { isPublished: true } });
    try {
      const categories = (await server.call("GET", "/api/kb/categories")).body;
      expect(categories).toContainEqual({ _id: "usage", count: 2 });
      const tags = (await server.call("GET", "/api/kb/tags")).body;
      expect(tags).toContainEqual({ _id: "restore", count: 2 });
      expect(tags).toContainEqual({ _id: "draft-only", count: 1 });
    } finally {
      await server.call("PUT", `/api/kb/${draft._id}`, { token: admin.token, body: { isPublished: false } });
    }
  });
});

describe("over real HTTP", () => {
  test("the public routes answer JSON on a listening server", async () => {
    const base = server.listen();
    const listRes = await fetch(`${base}/api/kb?search=mongore`);
    expect(listRes.status).toBe(200);
    expect(listRes.headers.get("content-type")).toStartWith("application/json");
    expect(((await listRes.json()) as { articles: Entry[] }).articles.map((a) => a.slug)).toEqual(["restoring-with-mongorestore"]);

    const categories = await fetch(`${base}/api/kb/categories`);
    expect(((await categories.json()) as unknown[]).length).toBe(4);

    const article = await fetch(`${base}/api/kb/encryption-keys`);
    expect(((await article.json()) as { title: string }).title).toBe("Encryption keys");

    const draft = await fetch(`${base}/api/kb/secret-draft`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(draft.status).toBe(200);
    expect((await fetch(`${base}/api/kb/secret-draft`)).status).toBe(404);

    const created = await fetch(`${base}/api/kb`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Over HTTP", slug: "over-http", content: "Body" }),
    });
    expect(created.status).toBe(201);
    const { _id } = (await created.json()) as { _id: string };
    const removed = await fetch(`${base}/api/kb/${_id}`, { method: "DELETE", headers: { authorization: `Bearer ${admin.token}` } });
    expect(removed.status).toBe(200);
  });
});
