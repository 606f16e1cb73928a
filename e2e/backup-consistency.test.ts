// The backups table says what moment each backup holds, in Chromium against the real server and a
// scripted agent: a replica set's backup "Consistent as of the last write at" T1 to the second (the oplog timestamp on
// hover), a standalone server's "not point-in-time consistent (standalone server)", and nothing
// for a backup whose agent did not report it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { databases } from "@db/schema";
import { startBackup } from "../server/src/modules/backups/service";
import type { TestUser } from "../server/test/harness";
import { registerScriptedAgent, type ScriptedAgent } from "../server/test/scripted-agent";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { signIn } from "./support/sign-in";

const T = 1_790_000_000;

let env: E2EEnv;
let agent: ScriptedAgent;
let user: TestUser;
beforeAll(async () => {
  env = await startE2E();
  user = await env.server.registerUser({ name: "Pat Point" });
  agent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["shop"]);
  await agent.connect();
});
afterAll(async () => {
  await agent?.disconnect();
  await env?.close();
});

/** A completed backup of "shop" whose agent reported `extra` with the completion. */
async function backupWith(extra: Record<string, unknown>): Promise<string> {
  const [database] = await env.server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")));
  const { id } = await startBackup(env.server.ctx, database!, "auto");
  await agent.waitFor("backup");
  const bytes = randomBytes(2000);
  expect((await agent.uploadPart(id, 0, bytes)).status).toBe(200);
  expect((await agent.complete(id, bytes, 1, extra)).status).toBe(200);
  return id;
}

const row = (page: Page, id: string) => page.locator(`[data-testid="backup-row"][data-backup-id="${id}"]`);

test("each backup row says the moment the backup holds, or that a standalone server's holds none", async () => {
  const unreported = await backupWith({});
  const standalone = await backupWith({ consistency: { kind: "standalone" } });
  const consistent = await backupWith({ consistency: { kind: "point-in-time", at: { time: new Date(T * 1000).toISOString(), ts: { t: T, i: 12 } } } });
  const { page } = await env.openPage();
  await signIn(page, user);

  const line = row(page, consistent).getByTestId("backup-consistency");
  await line.waitFor();
  const shown = await page.evaluate(
    (iso) => new Date(iso).toLocaleString("en-US", { month: "short", day: "numeric", year: "numeric", hour: "numeric", minute: "2-digit", second: "2-digit" }),
    new Date(T * 1000).toISOString(),
  );
  expect(await line.innerText()).toBe(`Consistent as of the last write at ${shown}`);
  expect(await line.getAttribute("title")).toBe(`As of oplog timestamp {t: ${T}, i: 12}`);
  expect(await row(page, standalone).getByTestId("backup-consistency").innerText()).toBe("not point-in-time consistent (standalone server)");
  expect(await row(page, unreported).getByTestId("backup-consistency").count()).toBe(0);
  await env.screenshot(page, "backup-consistency");
}, 60_000);
