// The dashboard's "places" badge in Chromium against the real server and a scripted agent: a
// backup in DBVault alone reads "1 place", one the agent also copied to the customer's bucket
// "2 places" with the bucket on hover; a failed copy does not count and says why.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { databases } from "@db/schema";
import { startBackup } from "../server/src/modules/backups/service";
import type { TestUser } from "../server/test/harness";
import { registerScriptedAgent, type ScriptedAgent } from "../server/test/scripted-agent";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { signIn } from "./support/sign-in";

let env: E2EEnv;
let agent: ScriptedAgent;
let user: TestUser;
beforeAll(async () => {
  env = await startE2E();
  user = await env.server.registerUser({ name: "Cora Copies" });
  agent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["shop"]);
  await agent.connect();
});
afterAll(async () => {
  await agent?.disconnect();
  await env?.close();
});

/** A completed backup of "shop"; `copies` are reported by the agent as written (or failed). */
async function backupWith(copies: { destination: string; status: "stored" | "failed"; error?: string; lockedUntil?: string }[]) {
  const [database] = await env.server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")));
  const { id } = await startBackup(env.server.ctx, database!, "auto");
  const { fileName } = await agent.waitFor("backup");
  const bytes = randomBytes(2000);
  expect((await agent.uploadPart(id, 0, bytes)).status).toBe(200);
  expect((await agent.complete(id, bytes, 1)).status).toBe(200);
  const sha256 = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  for (const copy of copies) {
    const key = `dbvault/shop/${fileName}`;
    agent.send({ type: "backup.copied", backupId: id, key, ...copy, ...(copy.status === "stored" ? { size: bytes.length, sha256 } : {}) });
  }
  await eventually(
    async () => (await env.server.call("GET", `/api/backups/${id}`, { token: user.token })).body.copies.length,
    (count) => expect(count).toBe(copies.length),
  );
  return id;
}

const badge = (page: Page, id: string) => page.locator(`[data-testid="backup-row"][data-backup-id="${id}"]`).getByTestId("places-badge");

test("each backup says in how many places it is, and which on hover", async () => {
  const alone = await backupWith([]);
  const copied = await backupWith([
    { destination: "s3://acme-offsite/dbvault/?endpoint=https%3A%2F%2Fs3.example.com&region=eu-west-1", status: "stored" },
    { destination: "s3://acme-gone/dbvault/", status: "failed", error: "NoSuchBucket" },
  ]);
  const { page } = await env.openPage();
  await signIn(page, user);

  await badge(page, copied).waitFor();
  expect(await badge(page, alone).innerText()).toBe("1 place");
  expect(await badge(page, copied).innerText()).toBe("2 places");
  await badge(page, copied).hover();
  const tooltip = page.getByRole("tooltip");
  await tooltip.waitFor();
  const text = await tooltip.innerText();
  expect(text).toContain("DBVault storage");
  expect(text).toContain("Your bucket: s3://acme-offsite/dbvault/");
  expect(text).toContain("Copy to s3://acme-gone/dbvault/ failed: NoSuchBucket. The agent log says more.");
});

test("a copy the daily check found gone: the badge counts it out, and Settings → Databases lists each copy with its status and last check", async () => {
  const destination = "s3://acme-checked/dbvault/?region=eu-west-1";
  const id = await backupWith([{ destination, status: "stored", lockedUntil: "2027-01-15T12:00:00.000Z" }]);
  const report = await fetch(`${env.baseUrl}/api/agent/copies/checks`, {
    method: "POST",
    headers: { ...agent.headers(), "content-type": "application/json" },
    body: JSON.stringify({ results: [{ backupId: id, destination, outcome: "missing", readBack: false, detail: "the bucket has no object (NoSuchKey)" }] }),
  });
  expect(await report.json()).toEqual({ recorded: 1, alerts: 1 });
  const { page } = await env.openPage();
  await signIn(page, user);

  await badge(page, id).waitFor();
  expect(await badge(page, id).innerText()).toBe("1 place");
  await badge(page, id).hover();
  expect(await page.getByRole("tooltip").innerText()).toContain("Copy in s3://acme-checked/dbvault/ is gone: the bucket has no object (NoSuchKey)");

  await page.goto("/settings?tab=databases");
  await page.getByRole("button", { name: "Copies in your buckets" }).click();
  const dialog = page.getByRole("dialog", { name: "Copies of shop" });
  const list = dialog.getByTestId("database-copies");
  await list.locator("li").first().waitFor();
  // Newest backup first: the missing copy, then the earlier backup's stored and never-written ones.
  expect(await list.locator("li").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-copy-status")))).toEqual(["missing", "failed", "stored"]);
  const missing = await list.locator('li[data-copy-status="missing"]').innerText();
  expect(missing).toContain("Missing");
  expect(missing).toContain("s3://acme-checked/dbvault/ · dbvault/shop/");
  expect(missing).toContain("1.95 KB · Checked ");
  expect(missing).toContain("the bucket has no object (NoSuchKey)");
  expect(missing).toContain("Locked until Jan 15, 2027");
  expect(await list.locator('li[data-copy-status="failed"]').innerText()).toContain("Never checked");
  await dialog.getByRole("button", { name: "Close" }).click();
  await dialog.waitFor({ state: "hidden" });
});
