// One real server (fresh database, the built SPA) and one Chromium per test file.
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startTestServer, type TestServer } from "../../server/test/harness";
import { buildReleasePublicKey } from "../../testkit/signed-agent-release";
import { launchChromium } from "./chromium";

const root = resolve(import.meta.dir, "../..");
export const SCREENSHOT_DIR = join(root, "test-output", "screenshots");

/** Builds the web app once if web/dist is missing (scripts/test.sh builds it before the tests). */
async function ensureWebBuilt() {
  if (existsSync(join(root, "web", "dist", "index.html"))) return;
  const build = Bun.spawn([process.execPath, join(root, "scripts", "build-web.ts")], { cwd: root, stdout: "inherit", stderr: "inherit" });
  if ((await build.exited) !== 0) throw new Error("web build failed");
}

export type E2EEnv = {
  server: TestServer;
  baseUrl: string;
  browser: Browser;
  /** A fresh browser context (own storage) with a page; records requests to other origins. */
  openPage(options?: { viewport?: { width: number; height: number } }): Promise<{ context: BrowserContext; page: Page; foreignRequests: string[] }>;
  screenshot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
};

/** `serverEnv`: extra server settings (e.g. WEBHOOK_ALLOW_PRIVATE for a receiver on loopback). */
export async function startE2E(serverEnv: Record<string, string> = {}): Promise<E2EEnv> {
  await ensureWebBuilt();
  // The server trusts the key this checkout's agent builds (dist/) are signed with, as npm start does.
  const server = await startTestServer({ RELEASE_PUBLIC_KEY: buildReleasePublicKey(), ...serverEnv });
  const baseUrl = server.listen();
  const browser = await launchChromium();
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const origin = new URL(baseUrl).origin;
  return {
    server,
    baseUrl,
    browser,
    async openPage(options = {}) {
      const context = await browser.newContext({ baseURL: baseUrl, viewport: options.viewport ?? { width: 1280, height: 900 } });
      const page = await context.newPage();
      const foreignRequests: string[] = [];
      page.on("request", (request) => {
        const url = request.url();
        if (!url.startsWith("data:") && !url.startsWith("blob:") && new URL(url).origin !== origin) foreignRequests.push(url);
      });
      return { context, page, foreignRequests };
    },
    async screenshot(page, name) {
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
    },
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
