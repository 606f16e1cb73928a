// The second day, in the browser against the real server, with scripted agents standing for the
// machines: the first machine set up again (setup --force) stays one agent; a second machine
// holding the same database is added, chosen to run it, and the first removed; the agent is
// renamed; backups go on on the new machine, and a restore from the dashboard is a copy unless
// the user chooses otherwise. (The real agent's side of setup --force: agent/test/setup-again.)
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { registerScriptedAgent, type ScriptedAgent } from "../server/test/scripted-agent";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { signIn } from "./support/sign-in";
import { toasts } from "./support/toasts";

let env: E2EEnv;
const agents: ScriptedAgent[] = [];
beforeAll(async () => {
  env = await startE2E();
}, 60_000);
afterAll(async () => {
  for (const agent of agents) await agent.disconnect();
  await env?.close();
});

/**
 * A machine called `hostname` running the agent with `databases` in its config; `again`, the agent
 * it was before (setup --force, which sends that agent's own credentials).
 */
async function machine(apiKey: string, hostname: string, databases: string[], again?: ScriptedAgent) {
  const agent = await registerScriptedAgent(
    env.baseUrl,
    apiKey,
    databases,
    hostname,
    { hostname, ...(again ? { agentId: again.agentId } : {}) },
    again ? again.headers() : {},
  );
  await agent.connect({ hostname, databases });
  agents.push(agent);
  return agent;
}

test("set up again, replace the machine, rename, back up and restore as a copy", async () => {
  const user = await env.server.registerUser({ name: "Second Day" });
  const first = await machine(user.apiKey, "vm", ["shop"]);
  const firstName = `vm-${first.agentId.slice(-4)}`;
  const { context, page } = await env.openPage();
  await signIn(page, user);

  // setup --force on the same machine: the same agent with new credentials, not a second "vm".
  const again = await machine(user.apiKey, "vm", ["shop"], first);
  expect(again.agentId).toBe(first.agentId);
  await page.goto("/settings?tab=agents");
  const list = page.getByRole("list", { name: "Agents" });
  await eventually(
    () => list.getByRole("listitem").count(),
    (value) => expect(value).toBe(1),
  );
  await list.getByText(firstName).waitFor();
  await page
    .getByRole("region", { name: `Agent ${firstName}` })
    .getByText("Online")
    .first()
    .waitFor();
  await env.screenshot(page, "second-day-agents-after-setup-again");

  // A new machine holding the same database: both are shown and the user picks the new one.
  const second = await machine(user.apiKey, "vm", ["shop"]);
  const secondName = `vm-${second.agentId.slice(-4)}`;
  expect(secondName).not.toBe(firstName);
  await page.goto("/settings?tab=databases");
  await page
    .getByText(/dbvault-agent db add/)
    .first()
    .waitFor();
  const runsOn = page.getByLabel("Agent that backs up shop");
  await eventually(
    () => runsOn.locator("option").allInnerTexts(),
    (value) => expect(value).toEqual([`${firstName} (Online)`, `${secondName} (Online)`]),
  );
  await runsOn.selectOption(second.agentId);
  await eventually(
    async () => (await env.server.call("GET", "/api/settings/databases", { token: user.token })).body[0].agentId,
    (value) => expect(value).toBe(second.agentId),
  );
  await env.screenshot(page, "second-day-databases-choice");

  // The old machine is removed: the dialog says how to connect it again; shop stays on the new one.
  await page.goto(`/settings?agent=${first.agentId}`);
  const details = page.getByRole("region", { name: `Agent ${firstName}` });
  await details.getByRole("button", { name: "Remove Agent" }).click();
  const dialog = page.getByRole("dialog");
  await eventually(
    () => dialog.innerText(),
    (value) => expect(value).toContain("run dbvault-agent setup --force on it"),
  );
  await dialog.getByRole("button", { name: "Remove Agent" }).click();
  await toasts(page).getByText(`The agent "${firstName}" was removed. Its backups are kept.`).waitFor();
  await page.getByRole("tab", { name: "Databases" }).click();
  await page.getByText(`Runs on ${secondName} (Online)`).waitFor();

  // Renamed, so that it can be told from the next one.
  await page.getByRole("tab", { name: "Agents" }).click();
  await page
    .getByRole("region", { name: `Agent ${secondName}` })
    .getByRole("button", { name: "Rename" })
    .click();
  await page.getByLabel("Agent name").fill("shop server");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("region", { name: "Agent shop server" }).waitFor();
  await page.reload();
  await page.getByRole("list", { name: "Agents" }).getByText("shop server").waitFor();

  // The dashboard: Trigger Backup is not blocked, the backup runs on the new machine.
  await page.goto("/dashboard");
  await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor();
  await eventually(
    () => page.getByRole("button", { name: "Trigger Backup" }).isEnabled(),
    (value) => expect(value).toBe(true),
  );
  await page.getByRole("button", { name: "Trigger Backup" }).click();
  const backup = await second.waitFor("backup");
  expect((await second.upload(backup.backupId, randomBytes(4096))).status).toBe(200);
  const row = page.getByTestId("backup-row").first();
  await row.getByText("Completed").waitFor({ timeout: 15_000 });

  // A restore is a copy unless the user chooses otherwise; its warnings say the original is safe.
  await row.getByRole("button", { name: /^Restore / }).click();
  const wizard = page.getByTestId("restore-dialog");
  await page.getByRole("heading", { name: "Restore database: step 1 of 2" }).waitFor();
  expect(await wizard.getByLabel(/Restore as a copy/).isChecked()).toBe(true);
  const copyName = await wizard.getByLabel("Target database").inputValue();
  await page.getByRole("button", { name: "Next" }).click();
  await wizard.getByText("shop is not changed").waitFor();
  await env.screenshot(page, "second-day-restore-copy");
  await page.getByRole("button", { name: "Restore as a copy" }).click();
  const restore = await second.waitFor("restore");
  expect(restore).toMatchObject({ backupId: backup.backupId, databaseName: "shop", targetDatabase: copyName });
  await page.getByRole("tab", { name: "Restore History", selected: true }).waitFor();
  await context.close();
});
