// A database's excluded collections (issue 44) over HTTP: set with PUT
// /api/settings/databases/:id/exclusions (validated, owner only), sent to the agent with the backup
// command, and recorded on the backup so that its details and a restore of it say so.
import { describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { databases } from "@db/schema";
import { waitUntil } from "../../testkit/wait-until";
import { MAX_EXCLUDED_COLLECTIONS } from "../src/modules/databases/exclusions";
import { startBackup } from "../src/modules/backups/service";
import { useListeningTestServer } from "./harness";
import { registerScriptedAgent } from "./scripted-agent";

const world = useListeningTestServer();

async function shopOf(userId: string) {
  const [shop] = await world.server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, userId), eq(databases.name, "shop")));
  return shop!;
}

describe("excluded collections", () => {
  test("the backup command carries them, and the backup records them", async () => {
    const user = await world.server.registerUser();
    const agent = await registerScriptedAgent(world.base, user.apiKey, ["shop"]);
    await agent.connect({ databases: ["shop"] });
    const id = (await shopOf(user.id)).id;
    const set = await world.server.call("PUT", `/api/settings/databases/${id}/exclusions`, {
      token: user.token,
      body: { collections: ["logs", "audit.events", "logs"] },
    });
    expect(set.status).toBe(200);
    expect(set.body.find((row: { id: string }) => row.id === id).excludedCollections).toEqual(["logs", "audit.events"]);

    const shop = await shopOf(user.id);
    await waitUntil(
      async () =>
        await startBackup(world.server.ctx, shop, "auto")
          .then(() => true)
          .catch(() => false),
      { message: "the agent to take backups" },
    );
    const command = await agent.waitFor("backup");
    expect(command.excludeCollections).toEqual(["logs", "audit.events"]);
    const list = await world.server.call("GET", "/api/backups", { token: user.token });
    const backup = (list.body.backups ?? list.body).find((row: { id: string }) => row.id === command.backupId);
    expect(backup.excludedCollections).toEqual(["logs", "audit.events"]);

    // Cleared: the next command names none (as older servers send it).
    await world.server.call("PUT", `/api/settings/databases/${id}/exclusions`, { token: user.token, body: { collections: [] } });
    expect((await shopOf(user.id)).excludedCollections).toEqual([]);
  });

  test("bad names, too many, a bad body and another user's database are refused with a clear message", async () => {
    const owner = await world.server.registerUser();
    const other = await world.server.registerUser();
    const agent = await registerScriptedAgent(world.base, owner.apiKey, ["shop"]);
    await agent.connect({ databases: ["shop"] });
    const id = (await shopOf(owner.id)).id;
    const put = (collections: unknown, token = owner.token) =>
      world.server.call("PUT", `/api/settings/databases/${id}/exclusions`, { token, body: { collections } });

    const cases: [unknown, string][] = [
      [[""], "Cannot exclude it: a collection name cannot be empty."],
      [["a$b"], 'Cannot exclude it: "a$b" is not a collection name: it contains "$".'],
      [["system.views"], 'Cannot exclude it: "system.views" is a system collection: its backups need it.'],
      [
        Array.from({ length: MAX_EXCLUDED_COLLECTIONS + 1 }, (_, i) => `c${i}`),
        `At most ${MAX_EXCLUDED_COLLECTIONS} collections can be excluded from a database's backups.`,
      ],
    ];
    for (const [collections, message] of cases) {
      const res = await put(collections);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
    }
    const notAList = await put("logs");
    expect(notAList.status).toBe(400);
    expect(notAList.body.message).toContain("collections must be a list of collection names");
    expect((await put(["logs"], other.token)).status).toBe(404);
    expect((await shopOf(owner.id)).excludedCollections).toEqual([]);
  });
});
