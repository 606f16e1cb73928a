import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { embeddedNameOf } from "../../lib/embedded-files";

/** One file of the built web app, ready to be sent. */
export type WebAsset = { body: Blob; contentType: string; cacheControl: string };

/** The built single-page app: its shell (index.html) and every other file by URL path. */
export type WebAssets = { indexHtml: Blob; files: Map<string, WebAsset> };

// Files under /assets/ carry a content hash in their name (scripts/build-web.ts), so a browser
// may keep them for a year; anything else is revalidated. index.html is never cached, so a
// deploy is picked up on the next navigation.
export const IMMUTABLE_CACHE = "public, max-age=31536000, immutable";
export const SHORT_CACHE = "public, max-age=3600";
export const NO_CACHE = "no-cache";

/**
 * Where the built web app lives when nobody says otherwise: `web/dist` of this checkout.
 * The compiled single binary has no checkout around it: it serves `embeddedWebAssets()`.
 */
export function defaultWebDistDir(): string {
  return resolve(import.meta.dir, "../../../../web/dist");
}

function listFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...listFiles(path));
    else if (entry.isFile()) found.push(path);
  }
  return found;
}

/** Builds the asset table from (URL path, file) pairs; null when there is no index.html. */
export function webAssetsFromFiles(entries: Iterable<[urlPath: string, body: Blob]>): WebAssets | null {
  let indexHtml: Blob | null = null;
  const files = new Map<string, WebAsset>();
  for (const [urlPath, body] of entries) {
    if (urlPath === "/index.html") {
      indexHtml = body;
      continue;
    }
    files.set(urlPath, {
      body,
      contentType: body.type || "application/octet-stream",
      cacheControl: urlPath.startsWith("/assets/") ? IMMUTABLE_CACHE : SHORT_CACHE,
    });
  }
  return indexHtml ? { indexHtml, files } : null;
}

/**
 * Name prefix of the web app's files inside a compiled binary: scripts/build-server.ts embeds
 * `web/dist` with `--asset`, which keeps the folder's own name, so `web/dist/assets/x.js`
 * becomes the embedded file `dist/assets/x.js`.
 */
export const EMBEDDED_WEB_PREFIX = "dist/";

/** The web app embedded in this compiled binary; null when not compiled (or built without it). */
export function embeddedWebAssets(embedded: readonly Blob[] = Bun.embeddedFiles): WebAssets | null {
  const entries: [string, Blob][] = [];
  for (const file of embedded) {
    const name = embeddedNameOf(file);
    if (name.startsWith(EMBEDDED_WEB_PREFIX)) entries.push([`/${name.slice(EMBEDDED_WEB_PREFIX.length)}`, file]);
  }
  return entries.length > 0 ? webAssetsFromFiles(entries) : null;
}

/** Reads the built app from a directory (synchronously, at start-up); null when it was not built. */
export function loadWebAssets(distDir: string): WebAssets | null {
  if (!existsSync(join(distDir, "index.html")) || !statSync(distDir).isDirectory()) return null;
  return webAssetsFromFiles(listFiles(distDir).map((path): [string, Blob] => [`/${relative(distDir, path).split(sep).join("/")}`, Bun.file(path)]));
}
