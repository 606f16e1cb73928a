// Key rotation on the dashboard (issue 27 §5), in a real browser against the real server: each
// backup shows the key id (fingerprint) its file names, and the restore wizard warns, naming the
// key id, when the agent that would restore it does not hold that key in its keyring.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { backups } from "@db/schema";
import { registerScriptedAgent, type ScriptedAgent } from "../server/test/scripted-agent";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { signIn } from "./support/sign-in";

const HELD = "32c6aee69f6033de3a2444d67e6f022c";
const LOST = "2deacbd61cb59e47db556f754d6d86ae";

let env: E2EEnv;
let agent: ScriptedAgent | null = null;
beforeAll(async () => {
  env = await startE2E();
});
afterAll(async () => {
  await agent?.disconnect();
  await env?.close();
});

describe("key rotation on the dashboard", () => {
  test("each backup shows its key id; the restore wizard warns when the agent lacks that key", async () => {
    const user = await env.server.registerUser({ name: "Kim Keys" });
    agent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["shop"], "keys-agent");
    await agent.connect({ keyIds: [HELD] });
    const completed = (keyId: string, minutesAgo: number) => ({
      organizationId: user.id,
      databaseName: "shop",
      agentId: agent!.agentId,
      status: "completed" as const,
      size: 4096,
      keyId,
      createdAt: new Date(Date.now() - minutesAgo * 60_000),
      completedAt: new Date(Date.now() - minutesAgo * 60_000),
    });
    // Newest first in the list: the backup made with a key the agent no longer holds, then one it holds.
    await env.server.ctx.db.insert(backups).values([completed(LOST, 5), completed(HELD, 60)]);

    const { page } = await env.openPage();
    await signIn(page, user);
    const rows = page.getByTestId("backup-row");
    await eventually(
      () => rows.getByTestId("backup-key-id").allInnerTexts(),
      (texts) => expect(texts).toEqual(["key 2deacbd6", "key 32c6aee6"]),
    );
    expect(await rows.first().getByTestId("backup-key-id").getAttribute("title")).toBe(`Encrypted with the master key whose key id (fingerprint) is ${LOST}`);

    await rows
      .first()
      .getByRole("button", { name: /^Restore / })
      .click();
    const wizard = page.getByTestId("restore-dialog");
    await page.getByRole("heading", { name: "Restore database: step 1 of 2" }).waitFor();
    await wizard.getByText("This agent lacks the backup's key").waitFor();
    expect(await wizard.getByTestId("restore-key-warning").innerText()).toBe(
      `The agent keys-agent does not hold the key this backup was encrypted with (key id ${LOST}), so the restore would fail. ` +
        "On a machine whose keyring has that key, run dbvault-agent key export --all; then on keys-agent's machine run dbvault-agent key import --add and restart its agent.",
    );
    await env.screenshot(page, "restore-missing-key");
    await page.getByRole("button", { name: "Cancel" }).click();

    await rows
      .nth(1)
      .getByRole("button", { name: /^Restore / })
      .click();
    await page.getByRole("heading", { name: "Restore database: step 1 of 2" }).waitFor();
    expect(await wizard.getByTestId("restore-key-warning").count()).toBe(0);
  }, 120_000);
});
