import { Elysia, NotFoundError } from "elysia";
import type { AppContext } from "../../context";
import { defaultWebDistDir, embeddedWebAssets, loadWebAssets, NO_CACHE, type WebAssets } from "./assets";

const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>DBVault</title></head>
<body><h1>DBVault</h1><p>The web app has not been built. Run <code>npm run build:web</code> and restart the server.</p></body></html>`;

// A last path segment with an extension asks for a file; a missing file is a 404, not the app.
const looksLikeFile = (path: string) => /\/[^/]*\.[a-z0-9]{1,12}$/i.test(path);
const isApiPath = (path: string) => path === "/api" || path.startsWith("/api/");

/**
 * Serves the built single-page app: hashed assets with year-long caching, and index.html (never
 * cached) for every other GET that is neither /api/* nor a file, so deep links such as
 * /kb/some-article load the app, which then routes on the client. Unknown /api/* paths still
 * get the JSON 404 of the error handler. Mount it after every API controller.
 *
 * Not @elysiajs/static: its plugin is async, so its routes arrive after createApp returns (a
 * catch-all registered beside it answers first, even for JS and CSS), it sets one Cache-Control
 * for every file, and it reads a real directory where a compiled binary has embedded files
 * (scripts/build-server.ts).
 */
export const webController = (ctx: AppContext, options: { distDir?: string; assets?: WebAssets | null } = {}) => {
  const distDir = options.distDir ?? defaultWebDistDir();
  // A compiled binary serves the copy built into it; everything else reads web/dist from disk.
  const assets = options.assets !== undefined ? options.assets : (embeddedWebAssets() ?? loadWebAssets(distDir));
  if (!assets) ctx.log.warn("web app not built: pages answer with a notice until `npm run build:web` runs", { distDir });

  const app = new Elysia({ name: "web", detail: { hide: true } });
  for (const [path, asset] of assets?.files ?? []) {
    app.get(
      path,
      ({ set }) => {
        set.headers["content-type"] = asset.contentType;
        set.headers["cache-control"] = asset.cacheControl;
        return asset.body;
      },
      { detail: { hide: true } },
    );
  }
  return app.get(
    "/*",
    ({ request, set }) => {
      const path = new URL(request.url).pathname;
      if (isApiPath(path) || looksLikeFile(path)) throw new NotFoundError();
      set.headers["cache-control"] = NO_CACHE;
      set.headers["content-type"] = "text/html; charset=utf-8";
      if (!assets) {
        set.status = 503;
        return NOT_BUILT_PAGE;
      }
      return assets.indexHtml;
    },
    { detail: { hide: true } },
  );
};
