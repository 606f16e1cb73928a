// The whole product as one user lives it, in Chromium against the real server, the compiled agent
// (dist/dbvault-agent setup, then run as a child process) and the MongoDB test server: register,
// read the API key in Settings, set up and run the agent, see it Online, trigger a backup and
// watch it complete, download it (the agent's CLI decrypts it), damage the data, restore through
// the three-step wizard, check every document is back, see the plan's limits in Settings, and
// get banned by an admin. Every screen is kept as a journey-*.png screenshot.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { type CollectionSnapshot, snapshotDatabase } from "../agent/test/support/database-snapshot";
import { ensureFreshBinary, type RunningAgent, runSetup, startAgentProcess } from "../agent/test/support/end-to-end";
import { waitUntil } from "../testkit/wait-until";
import { BINARY_PATH, runAgent } from "../agent/test/support/run-agent";
import { type AgentTestEnv, openAgentTestEnv } from "../agent/test/support/test-env";
import { uniqueEmail } from "../server/test/harness";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { damageShopDatabase, installJourneyRecorders, readJourneyRecord, SEEDED_COUNTS, seedShopDatabase } from "./support/journey-support";
import { eventually } from "./support/eventually";

const UI_TIMEOUT = 60_000;
const BAN_REASON = "Crypto mining on the backup agent";

let env: E2EEnv;
let mongo: AgentTestEnv;
let agent: RunningAgent | null = null;
let context: BrowserContext;
let page: Page;
let source: string;
let workDir: string;
let configPath: string;
let atBackup: CollectionSnapshot[];
const email = uniqueEmail("journey");

beforeAll(async () => {
  await ensureFreshBinary();
  mongo = await openAgentTestEnv();
  env = await startE2E();
  source = mongo.uniqueDatabase("journey_shop");
  await seedShopDatabase(mongo.client.db(source));
  workDir = await mongo.makeTempDir();
  ({ context, page } = await env.openPage());
  await installJourneyRecorders(page);
});

afterAll(async () => {
  // Each step on its own: one failing must not leave the agent or a server running.
  const steps: Array<() => Promise<unknown>> = [
    async () => {
      if (!agent) return;
      // A deadline for a clean stop (then SIGKILL), not a wait for something to happen.
      const stopped = await Promise.race([agent.stop("SIGTERM").then(() => true), Bun.sleep(5000).then(() => false)]);
      if (!stopped) await agent.stop("SIGKILL");
    },
    async () => env?.close(),
    async () => mongo?.close(),
  ];
  for (const step of steps) await step().catch((error) => console.error("journey cleanup:", error));
});

const wait = { timeout: UI_TIMEOUT };
const backupRow = () => page.getByTestId("backup-row").first();
const restoreRow = () => page.getByTestId("restore-row").first();

/** A full-page screenshot from the top: scrolled pages otherwise show the sticky header mid-page. */
async function shoot(target: Page, name: string) {
  await target.evaluate(() => window.scrollTo(0, 0));
  await env.screenshot(target, name);
}

describe("user journey", () => {
  test("a new user registers and reads the API key in Settings → Security", async () => {
    await page.goto("/register");
    await page.getByRole("heading", { name: "Create your account" }).waitFor();
    await page.getByLabel("Full name").fill("Jules Journey");
    await page.getByLabel("Email address").fill(email);
    await page.getByLabel("Password", { exact: true }).fill("journey-secret-1");
    await page.getByLabel("Confirm password").fill("journey-secret-1");
    await shoot(page, "journey-register");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL("**/dashboard", wait);
    await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor(wait);
    await page.getByText("No backup agents connected").waitFor(wait);
    await shoot(page, "journey-dashboard-new-user");

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings", exact: true }).click();
    await page.waitForURL("**/settings*", wait);
    await page.getByRole("tab", { name: "Security" }).click();
    const keyField = page.getByLabel("API key", { exact: true });
    await keyField.waitFor(wait);
    const masked = await keyField.inputValue();
    await page.getByRole("button", { name: "Show", exact: true }).click();
    await page.getByRole("button", { name: "Hide", exact: true }).waitFor(wait);
    const apiKey = await keyField.inputValue();
    expect(apiKey).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(apiKey).not.toBe(masked);
    // The screenshot shows the key masked again: CI output is no place for a key, even a test one.
    await page.getByRole("button", { name: "Hide", exact: true }).click();
    await page.getByRole("button", { name: "Show", exact: true }).waitFor(wait);
    await eventually(
      () => keyField.inputValue(),
      (value) => expect(value).toBe(masked),
    );
    await shoot(page, "journey-settings-security");

    // Setup as a script would run it: the key on stdin, the connection string in a 0600 file.
    const setup = await runSetup({
      baseUrl: env.baseUrl,
      apiKey,
      databases: [{ name: "shop", uri: mongo.uriFor(source) }],
      directory: workDir,
      name: "journey-agent",
    });
    expect(setup.stderr).toContain('registered agent "journey-agent"');
    expect(setup.exitCode).toBe(0);
    configPath = setup.configPath;
    for (const output of [setup.stdout, setup.stderr]) expect(output).not.toContain(apiKey);
  });

  test("the agent runs and the dashboard shows it Online with the shop database selected", async () => {
    agent = startAgentProcess(configPath);
    // The dashboard refreshes System Status every 30 s; waiting for the connection first lets a fresh load show it.
    await waitUntil(() => agent!.log().includes('"msg":"connected to the DBVault server"'), { message: "the agent to connect", timeout: UI_TIMEOUT });
    await page.goto("/dashboard");
    const agentRow = page.getByTestId("agent-row").filter({ hasText: "journey-agent" });
    await agentRow.getByText("Online").waitFor(wait);
    // The selector leaves 'production-db' for the first active database once the agent's list is known.
    await page
      .getByLabel("Database")
      .locator('option:checked[value="shop"]')
      .waitFor({ state: "attached", ...wait });
    await eventually(
      () => page.getByLabel("Database").inputValue(),
      (value) => expect(value).toBe("shop"),
    );
    await shoot(page, "journey-dashboard-agent-online");
  });

  test("Trigger Backup: the row goes through its progress to Completed", async () => {
    atBackup = await snapshotDatabase(mongo.client.db(source));
    await page.getByRole("button", { name: "Trigger Backup" }).click();
    await page.getByRole("button", { name: "Backing up..." }).waitFor(wait);
    // On a fast machine the backup may be over before a screenshot: then the finished row is shot.
    await backupRow()
      .getByRole("progressbar")
      .or(backupRow().getByText("Completed", { exact: true }))
      .first()
      .waitFor(wait);
    await shoot(page, "journey-backup-running");
    await backupRow().getByText("Completed", { exact: true }).waitFor(wait);
    await page.getByRole("button", { name: "Trigger Backup" }).waitFor(wait);
    const seen = (await readJourneyRecord(page)).backups;
    expect(seen.at(-1)).toBe("completed");
    // The row was on screen while the agent worked: pending and/or in progress, then completed.
    expect(seen).toContain("in-progress");
    expect(seen.slice(0, -1).every((status) => status === "pending" || status === "in-progress")).toBe(true);
    await eventually(
      () => page.getByTestId("total-backups").innerText(),
      (value) => expect(value).toBe("1"),
    );
    await shoot(page, "journey-backup-completed");
  });

  test("Download: the spec's file name, and the agent's CLI decrypts it into the shop's archive", async () => {
    const downloadEvent = page.waitForEvent("download", wait);
    await backupRow()
      .getByRole("button", { name: /^Download / })
      .click();
    const download = await downloadEvent;
    const [asked] = (await readJourneyRecord(page)).savedNames;
    expect(asked).toMatch(/^backup-shop-\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z\.enc\.dbvault$/);
    expect(download.suggestedFilename()).toBe(asked!.replaceAll(":", "_"));
    await page.getByText(/^Download complete \(\d+\.\d{2} MB\)$/).waitFor(wait);
    await shoot(page, "journey-download-complete");

    const file = join(workDir, download.suggestedFilename());
    await download.saveAs(file);
    const bytes = await readFile(file);
    expect(bytes.includes(Buffer.from("customer7@example.com"))).toBe(false); // ciphertext, not the data
    const archive = join(workDir, "shop.archive");
    const decrypted = await runAgent(["decrypt", "--in", file, "--out", archive, "--config", configPath], { command: [BINARY_PATH] });
    expect(decrypted.exitCode).toBe(0);
    expect((await stat(archive)).size).toBeGreaterThan(bytes.length / 2);
    // A mongodump archive starts with its magic number 0x8199e26d (little-endian).
    expect((await readFile(archive)).readUInt32LE(0)).toBe(0x8199e26d);
    const verified = await runAgent(["verify", "--in", file, "--json", "--config", configPath], { command: [BINARY_PATH] });
    expect(verified.exitCode).toBe(0);
    expect(JSON.parse(verified.stdout)).toEqual({
      namespaces: Object.fromEntries(Object.entries(SEEDED_COUNTS).map(([name, count]) => [`${source}.${name}`, count])),
    });
  });

  test("the damaged data is restored through the wizard, document by document", async () => {
    await damageShopDatabase(mongo.client.db(source));
    await eventually(
      () => mongo.client.db(source).collection("orders").countDocuments(),
      (value) => expect(value).toBeLessThan(SEEDED_COUNTS.orders),
    );

    await backupRow()
      .getByRole("button", { name: /^Restore / })
      .click();
    await page.getByRole("heading", { name: "Restore database: step 1 of 2" }).waitFor(wait);
    // The agent reported the backup's collections: the wizard lists them with their counts.
    await page.getByRole("checkbox", { name: `orders ${SEEDED_COUNTS.orders.toLocaleString("en-US")} documents` }).waitFor(wait);
    await shoot(page, "journey-restore-where");
    // A copy is the default; the damaged data is restored over the original on purpose.
    await page.getByLabel(/Replace the original/).check();
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByRole("heading", { name: "Restore database: step 2 of 4" }).waitFor(wait);
    await shoot(page, "journey-restore-step-1");
    await page.getByRole("button", { name: "I understand, continue" }).click();
    await page.getByRole("heading", { name: "Restore database: step 3 of 4" }).waitFor(wait);
    await shoot(page, "journey-restore-step-2");
    await page.getByRole("button", { name: "Continue with restore" }).click();
    const restoreButton = page.getByRole("button", { name: "Restore database" });
    await page.getByLabel("Type shop to confirm").fill("shop");
    await eventually(
      () => restoreButton.isEnabled(),
      (value) => expect(value).toBe(true),
    );
    await shoot(page, "journey-restore-step-3");
    await restoreButton.click();

    await page.getByRole("tab", { name: "Restore History", selected: true }).waitFor(wait);
    await restoreRow()
      .getByText(/ documents$|^Starting up\.\.\.$|^Restore completed successfully$/)
      .first()
      .waitFor(wait);
    await shoot(page, "journey-restore-running");
    await restoreRow().getByText("Restore completed successfully").waitFor(wait);
    await restoreRow().getByText("Completed", { exact: true }).waitFor(wait);
    // The Completed column fills in once the list reloads (every 5 s while it held a running restore).
    await restoreRow()
      .locator("td")
      .nth(3)
      .getByText(/^[A-Z][a-z]{2} \d{1,2}, \d{4} \d{1,2}:\d{2} [AP]M$/)
      .waitFor(wait);
    const seen = (await readJourneyRecord(page)).restores;
    expect(seen.at(-1)).toBe("completed");
    expect(seen).toContain("in-progress");
    expect(seen.slice(0, -1).every((status) => status === "pending" || status === "in-progress")).toBe(true);
    await shoot(page, "journey-restore-completed");

    const restored = await snapshotDatabase(mongo.client.db(source));
    expect(restored.map((c) => c.name)).toEqual(atBackup.map((c) => c.name));
    for (const [i, collection] of restored.entries()) {
      const before = atBackup[i]!;
      expect({ name: collection.name, options: collection.options, indexes: collection.indexes }).toEqual({
        name: before.name,
        options: before.options,
        indexes: before.indexes,
      });
      expect(collection.documents.length).toBe(before.documents.length);
      collection.documents.forEach((document, j) => {
        if (!document.equals(before.documents[j]!)) throw new Error(`${collection.name}: document ${j} differs from the backup`);
      });
    }
  });

  test("Settings → General: choices beyond the Free plan are disabled; an allowed change saves", async () => {
    await page.goto("/settings");
    await page.getByRole("tab", { name: "General" }).click();
    const frequency = page.getByLabel(/frequency/i);
    const retention = page.getByLabel(/retention/i);
    await frequency.waitFor(wait);
    // The Free plan: a backup every 24 hours at most, kept 7 days at most.
    const frequencies = await readOptions(frequency);
    expect(frequencies.find((o) => /hourly/i.test(o.label))?.disabled).toBe(true);
    expect(frequencies.find((o) => /daily/i.test(o.label))?.disabled).toBe(false);
    const retentions = await readOptions(retention);
    expect(retentions.length).toBe(6);
    for (const option of retentions)
      expect({ label: option.label, disabled: option.disabled }).toEqual({ label: option.label, disabled: Number.parseInt(option.label, 10) > 7 });
    await shoot(page, "journey-settings-general");

    const weekly = frequencies.find((o) => /weekly/i.test(o.label))!;
    const threeDays = retentions.find((o) => Number.parseInt(o.label, 10) === 3)!;
    await frequency.selectOption(weekly.value);
    await retention.selectOption(threeDays.value);
    await page.getByRole("button", { name: "Save Changes" }).click();
    await page.getByRole("button", { name: "Saved!" }).waitFor(wait);
    await shoot(page, "journey-settings-saved");
    await page.reload();
    await page.getByRole("tab", { name: "General" }).click();
    await page.getByLabel(/frequency/i).waitFor(wait);
    await eventually(
      () => page.getByLabel(/frequency/i).inputValue(),
      (value) => expect(value).toBe(weekly.value),
    );
    await eventually(
      () => page.getByLabel(/retention/i).inputValue(),
      (value) => expect(value).toBe(threeDays.value),
    );
  });

  test("an admin bans the user, whose browser lands on /banned with the reason", async () => {
    const admin = await env.server.registerAdmin();
    const adminBrowser = await env.openPage();
    const adminPage = adminBrowser.page;
    await adminPage.goto("/login");
    await adminPage.getByLabel("Email address").fill(admin.email);
    await adminPage.getByLabel("Password", { exact: true }).fill(admin.password);
    await adminPage.getByRole("button", { name: "Sign in" }).click();
    await adminPage.waitForURL("**/dashboard", wait);
    await adminPage.goto("/admin");
    await adminPage.getByRole("heading", { name: "Admin Dashboard", level: 1 }).waitFor(wait);
    await adminPage.getByPlaceholder("Search by name, email, plan").fill(email);
    const userRow = adminPage.getByTestId("admin-user-row").filter({ hasText: email });
    await userRow.getByRole("button", { name: "Jules Journey" }).click();
    const panel = adminPage.getByRole("region", { name: "User Details" });
    await eventually(
      () => panel.getByLabel("Email").inputValue(),
      (value) => expect(value).toBe(email),
    );
    await panel.getByLabel("Ban reason (optional)").fill(BAN_REASON);
    await panel.getByRole("button", { name: "Ban", exact: true }).click();
    // Banning asks first (issue 33).
    await adminPage.getByRole("dialog", { name: "Ban Jules Journey?" }).getByRole("button", { name: "Ban", exact: true }).click();
    await panel.getByText(`Reason: ${BAN_REASON}`).waitFor(wait);
    await userRow.getByText("banned").waitFor(wait);
    await shoot(adminPage, "journey-admin-banned");
    await adminBrowser.context.close();

    await page.goto("/dashboard");
    await page.waitForURL("**/banned", wait);
    await page.getByRole("heading", { name: "Account Suspended" }).waitFor(wait);
    await page.getByText(BAN_REASON).waitFor(wait);
    await shoot(page, "journey-banned");
    await context.close();
  });
});

/** The options of a select as the user sees them: label, value and whether it can be chosen. */
function readOptions(select: ReturnType<Page["getByLabel"]>) {
  return select
    .locator("option")
    .evaluateAll((options) => (options as HTMLOptionElement[]).map((o) => ({ label: o.textContent ?? "", value: o.value, disabled: o.disabled })));
}
