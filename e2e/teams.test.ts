// Teams in Chromium against the real server: an owner invites a colleague from Settings → Team,
// the colleague opens the mailed link without an account, signs up with the invited address and
// joins; the navbar's switcher then shows both organizations, and in the team a viewer sees no
// Trigger Backup and only the Team part of Settings. Removed, her open dashboard falls back to her
// own organization at once, and the team's audit log names the owner who removed her. An account
// alone sees no switcher.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { databases } from "@db/schema";
import { registerScriptedAgent } from "../server/test/scripted-agent";
import { waitUntil } from "../testkit/wait-until";
import { uniqueEmail } from "../server/test/harness";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { signIn } from "./support/sign-in";
import { waitForToast } from "./support/toasts";

let env: E2EEnv;
beforeAll(async () => {
  env = await startE2E();
});
afterAll(async () => {
  await env?.close();
});

const switcher = (page: Page) => page.getByRole("navigation", { name: "Main" }).getByRole("combobox", { name: "Organization" });

describe("teams", () => {
  test("invite → sign up from the link → accept → switch organizations → a viewer's limited view", async () => {
    const owner = await env.server.registerUser({ name: "Olivia Owner" });
    const { page } = await env.openPage();
    await signIn(page, owner);
    // Alone: no switcher; the dashboard offers Trigger Backup as always.
    await page.getByRole("button", { name: "Trigger Backup" }).waitFor();
    expect(await switcher(page).count()).toBe(0);

    await page.goto("/profile");
    await page.getByLabel("Team name").fill("Acme Ops");
    await page.getByRole("button", { name: "Create a team" }).click();
    await page.waitForURL("**/settings?tab=team");
    await page.getByRole("tab", { name: "Team", selected: true }).waitFor();
    expect(await switcher(page).inputValue()).not.toBe(owner.id);
    // At 1280 px the switcher shows its choice whole, role included ("· Owner").
    const [textWidth, room] = await switcher(page).evaluate((select) => {
      const element = select as HTMLSelectElement;
      const probe = document.createElement("span");
      probe.style.font = getComputedStyle(element).font;
      probe.style.whiteSpace = "pre";
      probe.textContent = element.selectedOptions[0]?.textContent ?? "";
      document.body.append(probe);
      const width = probe.getBoundingClientRect().width;
      probe.remove();
      const style = getComputedStyle(element);
      // The native arrow takes about 20 px beside the padding.
      return [width, element.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight) - 20];
    });
    expect(await switcher(page).locator("option:checked").innerText()).toEndWith("· Owner");
    expect(textWidth).toBeLessThanOrEqual(room);

    const email = uniqueEmail("vera");
    await page.getByLabel("Email address to invite").fill(email);
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Send invitation" }).click();
    await waitForToast(page, `Invitation sent to ${email}`);
    await page.getByRole("list", { name: "Pending invitations" }).getByText(email).waitFor();

    const mail = await waitUntil(() => env.server.sentMail.find((m) => m.to === email), { message: "the invitation mail" });
    const token = mail.text.match(/\/invite\/([A-Za-z0-9_-]+)/)?.[1];
    expect(token).toBeDefined();

    // The invitee, in a browser of their own, has no account yet.
    const invitee = (await env.openPage()).page;
    await invitee.goto(`/invite/${token}`);
    await invitee.getByText("Olivia Owner invited").waitFor();
    expect(await invitee.getByText("Acme Ops", { exact: true }).count()).toBe(1);
    await invitee.getByRole("link", { name: "Sign up to accept" }).click();
    await invitee.waitForURL("**/register?**");
    expect(await invitee.getByLabel("Email address").inputValue()).toBe(email);
    await invitee.getByLabel("Full name").fill("Vera Viewer");
    await invitee.getByLabel("Password", { exact: true }).fill("secret123");
    await invitee.getByLabel("Confirm password").fill("secret123");
    await invitee.getByRole("button", { name: "Create account" }).click();
    await invitee.waitForURL(`**/invite/${token}`);
    await invitee.getByRole("button", { name: "Join Acme Ops" }).click();
    await invitee.waitForURL("**/dashboard");
    await waitForToast(invitee, "You joined Acme Ops as Viewer.");

    // In the team as a viewer: the switcher says so, no Trigger Backup, Settings is the Team page only.
    const chosen = switcher(invitee).locator("option:checked");
    await waitUntil(async () => ((await chosen.textContent())?.includes("Acme Ops · Viewer") ? true : undefined), { message: "the switcher to show the team" });
    await invitee.getByRole("heading", { name: "Dashboard" }).waitFor();
    await invitee.getByRole("heading", { name: "Recent Backups" }).waitFor();
    expect(await invitee.getByRole("button", { name: "Trigger Backup" }).count()).toBe(0);
    // Nothing offered that a viewer cannot use: no test restore to do, no API key to set agents up with.
    await invitee.getByTestId("onboarding-step-backup").waitFor();
    expect(await invitee.getByTestId("onboarding-step-restore").count()).toBe(0);
    await invitee.goto("/profile");
    await invitee.getByRole("tab", { name: "Security" }).click();
    // A tab clicked with the mouse shows no focus box (the ring is for keyboard users).
    expect(await invitee.getByRole("tab", { name: "Security" }).evaluate((tab) => [tab === document.activeElement, getComputedStyle(tab).boxShadow])).toEqual([
      true,
      "none",
    ]);
    await invitee.getByRole("heading", { name: "Change Password" }).waitFor();
    expect(await invitee.getByLabel("API key", { exact: true }).count()).toBe(0);
    expect(await invitee.getByText("Regenerate it in Settings").count()).toBe(0);
    await invitee.goto("/settings");
    await invitee.getByRole("tab", { name: "Team", selected: true }).waitFor();
    expect(await invitee.getByRole("tab").count()).toBe(1);
    const members = invitee.getByRole("list", { name: "Members" });
    await members.getByText("Olivia Owner").waitFor();
    expect(await invitee.getByRole("button", { name: /^Remove / }).count()).toBe(0);
    expect(await invitee.getByRole("button", { name: "Send invitation" }).count()).toBe(0);

    // Back in their own organization, everything is theirs again; and back in the team, it is not.
    await switcher(invitee).selectOption({ label: "Vera Viewer (personal) · Owner" });
    await invitee.goto("/dashboard");
    await invitee.getByRole("button", { name: "Trigger Backup" }).waitFor();
    await switcher(invitee).selectOption({ label: "Acme Ops · Viewer" });
    await invitee.getByRole("button", { name: "Trigger Backup" }).waitFor({ state: "detached" });

    // The owner sees the new member, the invitation is no longer pending, and removes her.
    await page.reload();
    const vera = page.getByRole("list", { name: "Members" }).getByRole("listitem").filter({ hasText: "Vera Viewer" });
    await vera.waitFor();
    await page.getByText("No pending invitations.").waitFor();
    await vera.getByRole("button", { name: "Remove Vera Viewer" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Remove" }).click();
    await waitForToast(page, "Vera Viewer was removed from Acme Ops. They lose access at once.");

    // Her open dashboard loses the team at once (its socket closes) and falls back to her own.
    await waitForToast(invitee, "You are no longer a member of that organization");
    await invitee.getByRole("button", { name: "Trigger Backup" }).waitFor();
    expect(await switcher(invitee).count()).toBe(0);

    // The team's audit log says who did it and as what role (a personal one keeps 'User').
    await page.goto("/audit-logs");
    const removal = page.getByRole("row").filter({ hasText: "MEMBER_REMOVED" });
    await removal.getByText(`User: Olivia Owner (${owner.email}), Owner`).waitFor();

    // Switching organization on the dashboard asks the new one nothing about the old one's
    // databases (it once fetched a point-in-time timeline there: 404 and a console error).
    const agent = await registerScriptedAgent(env.baseUrl, owner.apiKey, ["shop"], "olivia-agent");
    await env.server.ctx.db.update(databases).set({ pitrEnabled: true }).where(eq(databases.organizationId, owner.id));
    await switcher(page).selectOption({ label: "Olivia Owner (personal) · Owner" });
    await page.goto("/dashboard");
    await page.getByTestId("pitr-coverage-shop").waitFor();
    const refused: string[] = [];
    page.on("response", (response) => {
      if (response.url().includes("/api/") && response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
    });
    const timelines: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/timeline")) timelines.push(request.url());
    });
    const teamDatabases = page.waitForResponse((response) => response.url().includes("/api/settings/databases"));
    await switcher(page).selectOption({ label: "Acme Ops · Owner" });
    await teamDatabases;
    await page.getByTestId("pitr-coverage-shop").waitFor({ state: "detached" });
    await page.getByRole("heading", { name: "Recent Backups" }).waitFor();
    expect(timelines).toEqual([]);
    expect(refused).toEqual([]);
    await agent.disconnect();
  }, 120_000);
});
