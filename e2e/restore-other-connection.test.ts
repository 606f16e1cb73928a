// Restore to another connection an agent knows (issue 44), in a real browser against the real
// server: the wizard lists the connection names of the online agents that can open the backup
// (names only: no connection string reaches the browser), and a restore into one of them asks for
// the typed target name and goes to that agent as a restore command naming the connection. At
// 390 px the choice fits the screen.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { backups } from "@db/schema";
import { registerScriptedAgent, type ScriptedAgent } from "../server/test/scripted-agent";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { findOverflow, findUnreachable, PHONE } from "./support/phone-checks";
import { signIn } from "./support/sign-in";

const KEY = "0123456789abcdef0123456789abcdef";

let env: E2EEnv;
const agents: ScriptedAgent[] = [];
beforeAll(async () => {
  env = await startE2E();
});
afterAll(async () => {
  for (const agent of agents) await agent.disconnect();
  await env?.close();
});

async function world(name: string) {
  const user = await env.server.registerUser({ name });
  const source = await registerScriptedAgent(env.baseUrl, user.apiKey, ["shop"], "db-host");
  const other = await registerScriptedAgent(env.baseUrl, user.apiKey, ["staging", "reports"], "staging-host");
  agents.push(source, other);
  await source.connect({ databases: ["shop"], keyIds: [KEY] });
  await other.connect({ databases: ["staging", "reports"], keyIds: [KEY] });
  const at = new Date(Date.now() - 5 * 60_000);
  const [backup] = await env.server.ctx.db
    .insert(backups)
    .values({
      organizationId: user.id,
      databaseName: "shop",
      agentId: source.agentId,
      status: "completed",
      size: 4096,
      keyId: KEY,
      createdAt: at,
      completedAt: at,
    })
    .returning();
  return { user, source, other, backup: backup! };
}

describe("restore to another connection from the wizard", () => {
  test("lists the agents' connection names, asks for the typed target, and sends the restore to that agent by name", async () => {
    const { user, source, other, backup } = await world("Rhea Elsewhere");
    const { page } = await env.openPage();
    await signIn(page, user);
    await page
      .getByTestId("backup-row")
      .first()
      .getByRole("button", { name: /^Restore / })
      .click();
    const wizard = page.getByTestId("restore-dialog");
    await page.getByRole("heading", { name: "Restore database: step 1 of 2" }).waitFor();
    await wizard.getByLabel(/Restore to another connection/).check();
    const select = wizard.getByTestId("restore-connection");
    await eventually(
      () => select.locator("option").allInnerTexts(),
      (texts) => expect(texts).toEqual(["Choose a connection", "reports (on staging-host)", "staging (on staging-host)"]),
    );
    // Not chosen yet: the wizard says so and does not go on.
    expect(await page.getByRole("button", { name: "Next" }).isDisabled()).toBe(true);
    await select.selectOption({ label: "reports (on staging-host)" });
    await wizard.getByLabel("Target database").fill("shop_copy");
    await page.getByRole("heading", { name: "Restore database: step 1 of 4" }).waitFor();
    await env.screenshot(page, "restore-other-connection");
    await page.getByRole("button", { name: "Next" }).click();
    expect(await wizard.innerText()).toContain("The backup is restored into shop_copy on the connection reports (agent staging-host)");
    await page.getByRole("button", { name: "I understand, continue" }).click();
    await page.getByRole("button", { name: "Continue with restore" }).click();
    await wizard.getByRole("textbox").fill("shop_copy");
    await page.getByRole("button", { name: "Restore database" }).click();

    const command = await other.waitFor("restore");
    expect(command).toMatchObject({ backupId: backup.id, databaseName: "reports", targetDatabase: "shop_copy" });
    expect(source.received.some((message) => message.type === "restore")).toBe(false);
    await page.getByTestId("restore-dialog").waitFor({ state: "detached" });
  }, 120_000);

  test("at 390 px the connection choice fits the screen", async () => {
    const { user } = await world("Pia Phone");
    const { page } = await env.openPage({ viewport: PHONE });
    await signIn(page, user);
    await page
      .getByTestId("backup-row")
      .first()
      .getByRole("button", { name: /^Restore / })
      .click();
    const wizard = page.getByTestId("restore-dialog");
    await wizard.getByLabel(/Restore to another connection/).check();
    await wizard.getByTestId("restore-connection").selectOption({ label: "staging (on staging-host)" });
    expect(await findUnreachable(wizard.getByTestId("restore-connection"))).toBeNull();
    expect(await findUnreachable(page.getByRole("button", { name: "Next" }))).toBeNull();
    expect(await findOverflow(page)).toBeNull();
    await env.screenshot(page, "restore-other-connection-phone");
  }, 120_000);
});
