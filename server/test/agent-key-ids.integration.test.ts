// PUT /api/agent/key-ids (issue 46 §1): `key rotate` or `key import` tells the server the
// agent's new key ids while its socket stays open. The verifications waiting for an agent that
// holds the key go at once, and restores are no longer refused as "No agent can read this
// backup". Over real HTTP and WebSockets with a scripted agent that never reconnects.
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { agents, databases } from "@db/schema";
import { agentApi } from "@protocol/agent-protocol";
import { startBackup } from "../src/modules/backups/service";
import { waitUntil } from "../../testkit/wait-until";
import { type TestUser, useListeningTestServer } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

const world = useListeningTestServer();
const OLD_KEY = "0123456789abcdef0123456789abcdef";
const NEW_KEY = "fedcba9876543210fedcba9876543210";

/** A user whose agent said hello holding OLD_KEY only, and a completed backup it made with NEW_KEY (right after a rotation). */
async function backupUnderNewKey() {
  const user = await world.server.registerUser();
  const agent = await registerScriptedAgent(world.base, user.apiKey, ["shop"]);
  await agent.connect({ databases: ["shop"], keyIds: [OLD_KEY] });
  const [shop] = await world.server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")));
  await startBackup(world.server.ctx, shop!, "auto");
  const { backupId } = await agent.waitFor("backup");
  const bytes = randomBytes(1500);
  expect((await agent.uploadPart(backupId, 0, bytes)).status).toBe(200);
  expect((await agent.complete(backupId, bytes, 1, { collections: { "shop.orders": 3 }, keyId: NEW_KEY })).status).toBe(200);
  return { user, agent, backupId };
}

const putKeyIds = (agent: ScriptedAgent, body: unknown, headers = agent.headers()) =>
  fetch(`${world.base}${agentApi.keyIds}`, { method: "PUT", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });
const askRestore = (user: TestUser, backupId: string) =>
  world.server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "shop" } });

describe("an agent's keyring changed while it stays connected", () => {
  test("the new key ids are recorded at once: the waiting verification goes and the restore is accepted", async () => {
    const { user, agent, backupId } = await backupUnderNewKey();
    await waitUntil(async () => (await world.server.call("GET", `/api/backups/${backupId}`, { token: user.token })).body.verificationWaitingFor, {
      message: "the verification to wait for an agent holding the new key",
    });
    const refused = await askRestore(user, backupId);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toStartWith(`No agent can read this backup: none of this organization's agents holds the key ${NEW_KEY}`);

    const told = await putKeyIds(agent, { keyIds: [NEW_KEY, OLD_KEY] });
    expect(told.status).toBe(200);
    expect(await told.json()).toEqual({ keyIds: [NEW_KEY, OLD_KEY] });
    expect((await agent.waitFor("verify")).backupId).toBe(backupId);
    const [row] = await world.server.ctx.db.select({ keyIds: agents.keyIds }).from(agents).where(eq(agents.id, agent.agentId));
    expect(row!.keyIds).toEqual([NEW_KEY, OLD_KEY]);
    expect((await askRestore(user, backupId)).status).toBe(201);
    expect((await agent.waitFor("restore")).backupId).toBe(backupId);
  });

  test("what is not a list of key ids is refused, saying so; without the agent's credentials, 401", async () => {
    const { agent } = await backupUnderNewKey();
    for (const body of [{ keyIds: ["not-a-key-id"] }, { keyIds: [] }, {}, { keyIds: Array.from({ length: 101 }, () => OLD_KEY) }]) {
      const answer = await putKeyIds(agent, body);
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { message: string }).message).toBeString();
    }
    const { authorization } = agent.headers();
    expect((await putKeyIds(agent, { keyIds: [NEW_KEY] }, { authorization: authorization! })).status).toBe(401);
    const [row] = await world.server.ctx.db.select({ keyIds: agents.keyIds }).from(agents).where(eq(agents.id, agent.agentId));
    expect(row!.keyIds).toEqual([OLD_KEY]);
  });
});
