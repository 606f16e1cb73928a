// The web app while the server goes away and comes back (a crash, a restart, a redeploy): the
// user is told what happened, never left on a blank window, and what the page shows catches up
// by itself once the server answers again. The server is really stopped (`server.restart`: HTTP
// and sockets cut, a new process on the same port and database); nothing is mocked.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import type { TestUser } from "../server/test/harness";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { signIn as signInAs } from "./support/sign-in";

let env: E2EEnv;
beforeAll(async () => {
  env = await startE2E();
});
afterAll(async () => {
  await env?.close();
});

async function signIn(page: Page, user: TestUser) {
  await signInAs(page, user);
  await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor();
}

describe("while the server is away", () => {
  test("a page whose code cannot be fetched says so, and opens with 'Try again' once the server is back", async () => {
    const user = await env.server.registerUser();
    const { context, page } = await env.openPage();
    await signIn(page, user);

    await env.server.restart({
      beforeStart: async () => {
        // The Audit Logs page's code has not been loaded yet in this tab.
        await page.getByRole("link", { name: "Audit Logs" }).first().click();
        await page.getByRole("heading", { name: "This page could not be loaded" }).waitFor();
        await page.getByText("DBVault could not be reached. Check your connection, then try again.").waitFor();
        // The rest of the app stays usable: the navigation bar is still there.
        await page.getByRole("link", { name: "Dashboard" }).first().waitFor();
        await env.screenshot(page, "connection-loss-page-not-loaded");
      },
    });

    await page.getByRole("button", { name: "Try again" }).click();
    await page.getByRole("heading", { name: "Audit Logs", level: 1 }).waitFor();
    await context.close();
  });
});
