import type { Page } from "playwright-core";

/** Signs in through the login form and waits for the page it lands on (the dashboard by default). */
export async function signIn(page: Page, user: { email: string; password: string }, landing: string | RegExp = "**/dashboard") {
  await page.goto("/login");
  await page.getByLabel("Email address").fill(user.email);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(landing);
}
