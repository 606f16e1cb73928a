// A new account's first minutes on the dashboard, against the real server and a scripted agent:
// the checklist in place of the empty chart (with this server's install one-liner), no phantom
// database, Trigger Backup disabled with its reason, each step turning done as it happens
// without a reload, and 'Set Up Agent' landing on the setup steps.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { registerScriptedAgent, type ScriptedAgent } from "../server/test/scripted-agent";
import { createTestReleaseKey, signAgentDir } from "../testkit/signed-agent-release";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { signIn } from "./support/sign-in";

let env: E2EEnv;
let agent: ScriptedAgent | null = null;
// A stand-in agent build (a few random bytes) for the checklist's real `curl | sh` to install.
const agentDir = mkdtempSync(join(tmpdir(), "dbvault-e2e-agent-"));
const installDir = mkdtempSync(join(tmpdir(), "dbvault-e2e-install-"));
beforeAll(async () => {
  writeFileSync(join(agentDir, "dbvault-agent-linux-x64"), randomBytes(50_000));
  // Offered only when signed: a release key of the test's own, which the server is told to trust.
  const key = createTestReleaseKey();
  await signAgentDir(agentDir, key, { "dbvault-agent-linux-x64": { platform: "linux-x64" } });
  env = await startE2E({ AGENT_DIR: agentDir, RELEASE_PUBLIC_KEY: key.publicKey });
});
afterAll(async () => {
  await agent?.disconnect();
  await env?.close();
  rmSync(agentDir, { recursive: true, force: true });
  rmSync(installDir, { recursive: true, force: true });
});

const step = (page: Page, id: string) => page.getByTestId(`onboarding-step-${id}`);
const stepDone = (page: Page, id: string) => step(page, id).getAttribute("data-done");

test("the checklist follows a new account from install to first backup and test restore, until hidden", async () => {
  const user = await env.server.registerUser({ name: "New Comer" });
  const { context, page } = await env.openPage();
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: env.baseUrl });
  // A new account's dashboard asks nothing the server refuses (it once asked for the backups of
  // a database named "").
  const refused: string[] = [];
  page.on("response", (response) => {
    if (response.url().includes("/api/") && response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
  });
  await signIn(page, user);

  const checklist = page.getByTestId("onboarding-checklist");
  await checklist.waitFor();
  const { mark } = (await env.server.call("GET", "/api/settings/system-status", { token: user.token })).body.install;
  const install = `curl -fsSL '${env.baseUrl}/install.sh?for=${mark}' | sh`;
  await checklist.getByText(install).waitFor();
  await checklist.getByRole("button", { name: `Copy command: ${install}` }).click();
  await eventually(
    () => page.evaluate(() => navigator.clipboard.readText()),
    (value) => expect(value).toBe(install),
  );
  for (const id of ["install", "setup", "connected", "backup", "restore"])
    await eventually(
      () => stepDone(page, id),
      (value) => expect(value).toBe("false"),
    );
  await eventually(
    () => page.getByTestId("success-rate").innerText(),
    (value) => expect(value).toBe("—"),
  );
  await eventually(
    () => page.getByLabel("Database").inputValue(),
    (value) => expect(value).toBe(""),
  );
  await page.getByTestId("trigger-blocked").getByText("Add a database with dbvault-agent setup first.").waitFor();
  await env.screenshot(page, "onboarding-new-account");
  expect(refused).toEqual([]);

  // The copied command, run as the user does: 'Install the agent' turns done before any setup.
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  if (process.platform === "linux" && process.arch === "x64") {
    // Not spawnSync: the server answering curl runs in this process.
    const installer = Bun.spawn(["sh", "-c", copied], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", DBVAULT_INSTALL_DIR: installDir, HOME: installDir },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stderr, code] = await Promise.all([new Response(installer.stderr).text(), installer.exited]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    await eventually(
      () => stepDone(page, "install"),
      (value) => expect(value).toBe("true"),
      15_000,
    );
    await eventually(
      () => stepDone(page, "setup"),
      (value) => expect(value).toBe("false"),
    );
  } else console.warn("onboarding: the stand-in agent build is linux-x64: the install command was not run here");

  // `dbvault-agent setup` registers the agent and its database: the first two steps turn done.
  agent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["orders"], "first-agent");
  await eventually(
    () => stepDone(page, "setup"),
    (value) => expect(value).toBe("true"),
    15_000,
  );
  await eventually(
    () => stepDone(page, "install"),
    (value) => expect(value).toBe("true"),
  );
  await eventually(
    () => stepDone(page, "connected"),
    (value) => expect(value).toBe("false"),
  );
  await eventually(
    () => page.getByLabel("Database").inputValue(),
    (value) => expect(value).toBe("orders"),
  );
  await page.getByTestId("trigger-blocked").getByText("The agent for orders is offline: start it with dbvault-agent run.").waitFor();

  // `dbvault-agent run` connects.
  await agent.connect();
  await eventually(
    () => stepDone(page, "connected"),
    (value) => expect(value).toBe("true"),
    15_000,
  );
  await page.getByTestId("trigger-blocked").waitFor({ state: "detached" });

  // The first backup: started here (the scheduler's first run does the same), uploaded, done.
  await page.getByRole("button", { name: "Trigger Backup" }).click();
  const command = await agent.waitFor("backup");
  expect((await agent.upload(command.backupId, randomBytes(4096))).status).toBe(200);
  // Steps 1-4 done: the checklist stays for the test restore, which it now suggests.
  await eventually(
    () => stepDone(page, "backup"),
    (value) => expect(value).toBe("true"),
    15_000,
  );
  await eventually(
    () => page.getByTestId("success-rate").innerText(),
    (value) => expect(value).toBe("100%"),
  );
  await step(page, "restore").getByText("Restore a backup into a copy, or run a restore drill").waitFor();
  await env.screenshot(page, "onboarding-test-restore");
  // Hidden, it gives the chart its place back, and stays hidden after a reload.
  await checklist.getByRole("button", { name: "Hide" }).click();
  await checklist.waitFor({ state: "detached" });
  await page.reload();
  await page.getByTestId("success-rate").waitFor();
  await eventually(
    () => page.getByTestId("success-rate").innerText(),
    (value) => expect(value).toBe("100%"),
  );
  expect(await checklist.count()).toBe(0);
  await env.screenshot(page, "onboarding-done");
  await context.close();
});

test("'Set Up Agent' lands on the setup steps, with this server's commands", async () => {
  const user = await env.server.registerUser();
  const { context, page } = await env.openPage();
  await signIn(page, user);
  await page.getByRole("link", { name: "Set Up Agent" }).click();
  await page.waitForURL("**/settings?tab=security&setup=1");
  const heading = page.getByRole("heading", { name: "Set up a new agent" });
  await page.waitForFunction(() => document.activeElement?.id === "agent-setup-heading");
  const guide = page.getByRole("region", { name: "Set up a new agent" });
  await eventually(
    () => guide.innerText(),
    (value) => expect(value).toContain(`dbvault-agent setup --server ${env.baseUrl}`),
  );
  expect(await heading.isVisible()).toBe(true);
  const downloads = page.getByRole("region", { name: "Download the agent" });
  await downloads.getByTestId("agent-download").first().waitFor();
  await eventually(
    () => downloads.innerText(),
    (value) => expect(value).toMatch(/SHA-256 [0-9a-f]{64}/),
  );
  await context.close();
});

test("after its only agent was removed, the dashboard and the checklist give setup --force, at 1280 and 390 px", async () => {
  const user = await env.server.registerUser();
  const removed = await registerScriptedAgent(env.baseUrl, user.apiKey, ["shop"], "gone-agent");
  expect((await env.server.call("DELETE", `/api/agents/${removed.agentId}`, { token: user.token })).status).toBe(200);
  for (const viewport of [
    { width: 1280, height: 900 },
    { width: 390, height: 844 },
  ]) {
    const { context, page } = await env.openPage({ viewport });
    await signIn(page, user);
    // `run` would exit "this agent was removed", and plain setup answer "already connected".
    await page
      .getByTestId("trigger-blocked")
      .getByText("The agent for shop was removed: connect its machine again with dbvault-agent setup --force.")
      .waitFor();
    expect(await page.getByText("start it with dbvault-agent run").count()).toBe(0);
    await step(page, "setup").getByText("Connect the agent again: dbvault-agent setup --force").waitFor();
    await step(page, "setup").getByText(`dbvault-agent setup --force --server ${env.baseUrl}`).waitFor();
    expect(await step(page, "setup").getByText(`dbvault-agent setup --server ${env.baseUrl}`, { exact: true }).count()).toBe(0);
    expect(await stepDone(page, "install")).toBe("true");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    await env.screenshot(page, `dashboard-agent-removed-${viewport.width}`);
    await context.close();
  }
});
