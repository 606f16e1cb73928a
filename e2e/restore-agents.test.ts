// Write-only agents and restore agents on the dashboard (issue 27 §4), in a real browser against
// the real server: the backups list says which agent can read a backup sealed by a write-only
// agent, and the restore wizard says a restore agent restores it, or takes the identity pasted
// into a field that seals it in the browser to the database's own agent (the transport key its
// hello said): the agent opens it, and the server never sees it readable, in no request body,
// command, table or file.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { armor, Decrypter, generateX25519Identity, identityToRecipient } from "age-encryption";
import { backups } from "@db/schema";
import { registerScriptedAgent, type ScriptedAgent } from "../server/test/scripted-agent";
import { whereServerKeeps } from "../server/test/secret-search";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { signIn } from "./support/sign-in";

/** The public key's fingerprint the write-only agent seals to. */
const RECIPIENT = "5eed0f1e5eed0f1e5eed0f1e5eed0f1e";

let env: E2EEnv;
const agents: ScriptedAgent[] = [];
beforeAll(async () => {
  env = await startE2E();
});
afterAll(async () => {
  for (const agent of agents) await agent.disconnect();
  await env?.close();
});

describe("restore agents on the dashboard", () => {
  test("the list says who can read a write-only backup; the wizard sends a pasted identity to the backup agent only", async () => {
    const user = await env.server.registerUser({ name: "Wren Writeonly" });
    const backupAgent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["shop"], "db-host");
    agents.push(backupAgent);
    // Its transport key pair: the hello says the public part, the private part stays with the agent.
    const agentKey = await generateX25519Identity();
    await backupAgent.connect({ databases: ["shop"], keyIds: [], identityRecipient: await identityToRecipient(agentKey) });
    const restoreAgent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["shop"], "recovery-laptop", { role: "restore" });
    agents.push(restoreAgent);
    await restoreAgent.connect({ role: "restore", keyIds: [RECIPIENT], databases: ["shop"] });
    const at = new Date(Date.now() - 5 * 60_000);
    const [backup] = await env.server.ctx.db
      .insert(backups)
      .values({
        organizationId: user.id,
        databaseName: "shop",
        agentId: backupAgent.agentId,
        status: "completed",
        size: 4096,
        keyId: RECIPIENT,
        createdAt: at,
        completedAt: at,
      })
      .returning();

    const { page } = await env.openPage();
    // Every request body the browser sends the server.
    const sentBodies: string[] = [];
    page.on("request", (request) => void sentBodies.push(request.postData() ?? ""));
    await signIn(page, user);
    const row = page.getByTestId("backup-row").first();
    await eventually(
      () => row.getByTestId("backup-readers").innerText(),
      (text) => expect(text).toBe("readable by: recovery-laptop"),
    );
    const agentRows = await page.getByTestId("agent-row").allInnerTexts();
    expect(agentRows.map((text) => [text.split("\n")[0], text.includes("v1.0.0 · linux-x64 · restore agent")])).toEqual([
      ["db-host", false],
      ["recovery-laptop", true],
    ]);
    await env.screenshot(page, "backup-readable-by-restore-agent");

    await row.getByRole("button", { name: /^Restore / }).click();
    const wizard = page.getByTestId("restore-dialog");
    await page.getByRole("heading", { name: "Restore database: step 1 of 2" }).waitFor();
    expect(await wizard.getByTestId("restore-reader-note").innerText()).toBe(
      "db-host cannot open this backup, so the restore runs on recovery-laptop, which holds its key, over that machine's connection. " +
        "To restore with db-host itself, paste the identity below.",
    );
    expect(await wizard.getByTestId("restore-key-warning").count()).toBe(0);
    const field = wizard.getByTestId("restore-identity");
    expect(await field.getAttribute("type")).toBe("password");

    // Not an identity: said, and the wizard does not go on.
    await field.fill("dbvk1_not-an-identity");
    expect(await wizard.getByTestId("restore-identity-hint").innerText()).toBe(
      "This is not an identity: paste the whole dbvid1_ line of the identity file that key mode write-only saved.",
    );
    expect(await page.getByRole("button", { name: "Next" }).isDisabled()).toBe(true);

    const identity = `dbvid1_${randomBytes(36).toString("base64url")}`;
    await field.fill(identity);
    await env.screenshot(page, "restore-identity-field");
    // Over the original: the default is a copy, so choose the database itself.
    await wizard.getByLabel(/Replace the original/).check();
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByRole("button", { name: "I understand, continue" }).click();
    await page.getByRole("button", { name: "Continue with restore" }).click();
    await wizard.getByRole("textbox").fill("shop");
    await page.getByRole("button", { name: "Restore database" }).click();

    const command = await backupAgent.waitFor("restore");
    expect(command).toMatchObject({ backupId: backup!.id, databaseName: "shop" });
    // Sealed in the browser: only the agent's private key opens it.
    const decrypter = new Decrypter();
    decrypter.addIdentity(agentKey);
    expect(await decrypter.decrypt(armor.decode(command.sealedIdentity!), "text")).toBe(identity);
    expect(restoreAgent.received.some((message) => message.type === "restore")).toBe(false);
    backupAgent.send({ type: "restore.completed", restoreId: command.restoreId, stats: { "shop.orders": { restored: 3, failed: 0 } } });
    await env.server.ctx.pendingWork.settled();
    const secret = identity.slice("dbvid1_".length);
    expect(sentBodies.some((body) => body.includes("sealedIdentity"))).toBe(true);
    expect(sentBodies.join("\n")).not.toContain(secret);
    expect(JSON.stringify([...backupAgent.received, ...restoreAgent.received])).not.toContain(secret);
    expect(await whereServerKeeps(env.server, secret)).toEqual([]);
  }, 120_000);
});
