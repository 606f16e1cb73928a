// Changes the server takes only from a re-authenticated session (issue 41), in Chromium: an owner
// makes a member owner in Settings → Team and the password is asked in a dialog (a wrong one said
// there, to be typed again) before the role shows Owner, then removes that owner the same way; and an owner approves, in Settings →
// Agents, the set-up code an agent's machine was shown, after which that machine registers again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { agentApi } from "@protocol/agent-protocol";
import { registerScriptedAgent } from "../server/test/scripted-agent";
import { createTeam } from "../server/test/teams";
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

/** `setup --force` on a machine without the agent's credentials: the server answers a one-time code. */
const registerAgain = (apiKey: string, agentId: string, setupCode?: string) =>
  fetch(`${env.baseUrl}${agentApi.register}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "shop-box", hostname: "shop-box", platform: "linux-x64", version: "1.0.0", databases: ["shop"], agentId, setupCode }),
  });

describe("changes that need the password again", () => {
  test("an owner makes a member owner through the password dialog", async () => {
    const owner = await env.server.registerUser({ name: "Olivia Owner" });
    const member = await env.server.registerUser({ name: "Adam Admin" });
    await createTeam(env.server, "Acme Ops", [
      { user: owner, role: "owner" },
      { user: member, role: "admin" },
    ]);
    const { page } = await env.openPage();
    await signIn(page, owner);
    await switcher(page).selectOption({ label: "Acme Ops · Owner" });
    await page.goto("/settings?tab=team");
    const role = page.getByRole("combobox", { name: "Role of Adam Admin" });
    await role.selectOption("owner");

    const dialog = page.getByRole("dialog", { name: "Make Adam Admin an owner" });
    await dialog.getByLabel("Current password").fill("not-my-password");
    await dialog.getByRole("button", { name: "Change role" }).click();
    await dialog.getByRole("alert").getByText("Current password is incorrect").waitFor();
    expect(await role.inputValue()).toBe("admin");

    await dialog.getByLabel("Current password").fill(owner.password);
    await dialog.getByRole("button", { name: "Change role" }).click();
    await dialog.waitFor({ state: "detached" });
    await waitForToast(page, "Adam Admin is now Owner.");
    await page.waitForFunction(() => {
      const select = document.querySelector<HTMLSelectElement>('select[aria-label="Role of Adam Admin"]');
      return select?.value === "owner";
    });
    const members = await env.server.call<{ name: string; role: string }[]>("GET", "/api/organizations/current/members", {
      token: member.token,
      headers: { "X-Organization-Id": (await switcher(page).inputValue()) || "" },
    });
    expect(members.body.find((one) => one.name === "Adam Admin")?.role).toBe("owner");

    // Removing an owner (DELETE, no body) goes through a session stamped with the password first.
    await page.getByRole("button", { name: "Remove Adam Admin" }).click();
    const removal = page.getByRole("dialog", { name: "Remove Adam Admin" });
    await removal.getByLabel("Current password").fill(owner.password);
    await removal.getByRole("button", { name: "Remove" }).click();
    await waitForToast(page, "Adam Admin was removed from Acme Ops. They lose access at once.");
    await page.getByRole("list", { name: "Members" }).getByText("Adam Admin").waitFor({ state: "detached" });
  }, 90_000);

  test("an owner approves the set-up code an agent's machine printed", async () => {
    const owner = await env.server.registerUser({ name: "Sam Setup" });
    const agent = await registerScriptedAgent(env.baseUrl, owner.apiKey, ["shop"], "shop-agent");
    const asked = await registerAgain(owner.apiKey, agent.agentId);
    expect(asked.status).toBe(409);
    const { setupCode } = (await asked.json()) as { setupCode: string };

    const { page } = await env.openPage();
    await signIn(page, owner);
    await page.goto("/settings?tab=agents");
    await page.getByRole("region", { name: "Agent shop-agent" }).getByRole("button", { name: "Approve a set-up code" }).click();
    const form = page.getByRole("form", { name: "Approve a set-up code for shop-agent" });
    await form.getByLabel("Set-up code the agent printed").fill(setupCode);
    await form.getByRole("button", { name: "Approve" }).click();
    const dialog = page.getByRole("dialog", { name: "Approve set-up of shop-agent" });
    await dialog.getByLabel("Current password").fill(owner.password);
    await dialog.getByRole("button", { name: "Approve" }).click();
    await page.getByText(`Approved. Run dbvault-agent setup --force --setup-code ${setupCode}`).waitFor();

    // The machine that was shown the code now registers the agent again, once.
    expect((await registerAgain(owner.apiKey, agent.agentId, setupCode)).status).toBeLessThan(300);
    await agent.disconnect();
  }, 90_000);
});
