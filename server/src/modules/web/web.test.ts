import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { httpBasics } from "../../lib/http";
import { silentLogger } from "../../lib/logger";
import type { AppContext } from "../../context";
import { embeddedWebAssets, IMMUTABLE_CACHE, NO_CACHE, SHORT_CACHE, webAssetsFromFiles } from "./assets";
import { webController } from "./index";

// The controller on its own, over an in-memory asset table: no build or database needed.
const assets = webAssetsFromFiles([
  ["/index.html", new Blob(["<!doctype html><div id=root></div>"], { type: "text/html;charset=utf-8" })],
  ["/assets/index-abc123.js", new Blob(["console.log(1)"], { type: "text/javascript;charset=utf-8" })],
  ["/assets/index-abc123.css", new Blob(["body{}"], { type: "text/css;charset=utf-8" })],
]);
const ctx = { log: silentLogger } as unknown as AppContext;

function buildApp(withAssets = assets) {
  return new Elysia()
    .use(httpBasics(silentLogger))
    .get("/api/known", () => ({ ok: true }))
    .use(webController(ctx, { assets: withAssets }));
}

describe("web controller", () => {
  const app = buildApp();
  const get = (path: string) => app.handle(new Request(`http://localhost${path}`));

  test("serves hashed assets with their type and a year-long cache", async () => {
    const js = await get("/assets/index-abc123.js");
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("javascript");
    expect(js.headers.get("cache-control")).toBe(IMMUTABLE_CACHE);
    expect(await js.text()).toBe("console.log(1)");
    const css = await get("/assets/index-abc123.css");
    expect(css.headers.get("content-type")).toContain("text/css");
  });

  test("answers deep links with index.html, never cached", async () => {
    for (const path of ["/", "/kb/some-article", "/reset-password/abc", "/admin/kb/new"]) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/html");
      expect(res.headers.get("cache-control")).toBe(NO_CACHE);
      // Served over plain http here: no HSTS, which would lock browsers out of an http-only server.
      expect(res.headers.get("strict-transport-security")).toBeNull();
      expect(res.headers.get("permissions-policy")).toContain("geolocation=()");
      expect(await res.text()).toContain("<div id=root>");
    }
  });

  test("keeps the security headers on pages", async () => {
    const res = await get("/about");
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
  });

  test("unknown API paths stay JSON 404s and API routes still answer", async () => {
    const res = await get("/api/nope");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "Not found.", code: "NOT_FOUND" });
    expect(await (await get("/api/known")).json()).toEqual({ ok: true });
  });

  test("a missing file is a 404, not the app", async () => {
    expect((await get("/assets/missing-123.js")).status).toBe(404);
    expect((await get("/favicon.ico")).status).toBe(404);
  });

  test("without a build, pages explain how to build it", async () => {
    const res = await buildApp(null).handle(new Request("http://localhost/dashboard"));
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("npm run build:web");
  });
});

describe("embedded web app (compiled binary)", () => {
  // Bun.embeddedFiles holds named Blobs; File stands in for them outside a compiled binary.
  const embedded = [
    new File(["\0asm"], "pglite.wasm", { type: "application/wasm" }),
    new File(["<!doctype html><div id=root></div>"], "dist/index.html", { type: "text/html;charset=utf-8" }),
    new File(["x"], "dist/assets/fonts/inter-abc.woff2", { type: "font/woff2" }),
    new File(["<svg/>"], "dist/robots-like.svg", { type: "image/svg+xml" }),
  ];

  test("takes the files under dist/ by URL path and leaves PGlite's files alone", () => {
    const found = embeddedWebAssets(embedded)!;
    expect(found).not.toBeNull();
    expect([...found.files.keys()].sort()).toEqual(["/assets/fonts/inter-abc.woff2", "/robots-like.svg"]);
    expect(found.files.get("/assets/fonts/inter-abc.woff2")!.cacheControl).toBe(IMMUTABLE_CACHE);
    expect(found.files.get("/robots-like.svg")!.cacheControl).toBe(SHORT_CACHE);
  });

  test("is null outside a compiled binary or without the web app inside", () => {
    expect(embeddedWebAssets()).toBeNull();
    expect(embeddedWebAssets([embedded[0]!])).toBeNull();
  });
});

describe("web controller inside the real app", () => {
  let server: Awaited<ReturnType<typeof import("../../../test/harness").startTestServer>>;
  beforeAll(async () => {
    const { startTestServer } = await import("../../../test/harness");
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  test("API routes win over the catch-all, unknown API paths are JSON", async () => {
    const plans = await server.call("GET", "/api/settings/plans");
    expect(plans.status).toBe(200);
    expect(Array.isArray(plans.body)).toBe(true);
    const missing = await server.call("GET", "/api/does-not-exist");
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("NOT_FOUND");
    const page = await server.call("GET", "/pricing-typo");
    expect([200, 503]).toContain(page.status);
  });
});
