// A signed-in user opening the app never sees the signed-out navigation bar (Log in / Sign up)
// while the page loads: every state the bar went through from the first paint is recorded.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { signIn } from "./support/sign-in";

let env: E2EEnv;
beforeAll(async () => {
  env = await startE2E();
}, 60_000);
afterAll(async () => {
  await env?.close();
});

test("a signed-in user's pages open with the signed-in navigation bar from the first paint", async () => {
  const user = await env.server.registerUser({ name: "Signed In" });
  const { context, page } = await env.openPage();
  await signIn(page, user);
  // Before any page script: note every time a 'Log in' link is in the document, painted or not.
  await page.addInitScript(() => {
    const seen = window as unknown as { sawLogIn: boolean };
    seen.sawLogIn = false;
    const look = () => {
      if (document.querySelector('nav a[href="/login"], nav a[href="/register"]')) seen.sawLogIn = true;
    };
    new MutationObserver(look).observe(document, { subtree: true, childList: true });
  });
  for (const path of ["/", "/dashboard", "/kb", "/settings"]) {
    await page.goto(path);
    await page.getByRole("button", { name: "Log out" }).first().waitFor({ state: "attached" });
    expect([path, await page.evaluate(() => (window as unknown as { sawLogIn: boolean }).sawLogIn)]).toEqual([path, false]);
  }
  await context.close();
}, 60_000);

test("one word each for signing in and out: the spec's on its buttons, 'sign in' and 'sign out' in text", async () => {
  const { context, page } = await env.openPage();
  await page.goto("/login");
  // The spec's words: the bar's 'Log in' and 'Sign up', the form's 'Sign in'.
  const nav = page.getByRole("navigation", { name: "Main" });
  await nav.getByRole("link", { name: "Log in", exact: true }).waitFor();
  await nav.getByRole("link", { name: "Sign up", exact: true }).waitFor();
  await page.getByRole("button", { name: "Sign in", exact: true }).waitFor();
  await page.getByRole("heading", { name: "Sign in to your account" }).waitFor();
  expect(await page.title()).toBe("DBVault - Sign in");
  await page.goto("/privacy");
  await page.getByRole("heading", { level: 1 }).waitFor();
  const privacy = await page.locator("main").innerText();
  expect(privacy).toContain("when you sign out");
  expect(privacy.toLowerCase()).not.toContain("log out");
  await context.close();
}, 60_000);
