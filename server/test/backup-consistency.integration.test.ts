// What moment a backup holds, as the agent reports it at completion: stored and returned by the
// backups API ("point-in-time" with consistentAt, "standalone", or null when not reported), and a
// report whose time is not its oplog timestamp's is refused with a clear message, nothing stored.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { databases } from "@db/schema";
import { startBackup } from "../src/modules/backups/service";
import { startTestServer, type TestServer } from "./harness";
import { registerScriptedAgent } from "./scripted-agent";

let server: TestServer;
let base: string;
beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
});
afterAll(() => server.close());

const T = 1_790_000_000;

test("a backup's consistency is stored as reported, returned by the API, and a contradicting time is refused", async () => {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, ["orders"]);
  await agent.connect();
  const backUp = async (extra: Record<string, unknown>) => {
    // Scheduled ones: a user's manual backups are limited per hour.
    const [database] = await server.ctx.db.select().from(databases).where(eq(databases.organizationId, user.id));
    await startBackup(server.ctx, database!, "auto");
    const { backupId } = await agent.waitFor("backup");
    const bytes = randomBytes(1000);
    expect((await agent.uploadPart(backupId, 0, bytes)).status).toBe(200);
    return { backupId, complete: () => agent.complete(backupId, bytes, 1, extra) };
  };

  const wrong = await backUp({ consistency: { kind: "point-in-time", at: { time: new Date((T + 1) * 1000).toISOString(), ts: { t: T, i: 7 } } } });
  const refused = await wrong.complete();
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { message: string }).message).toBe(
    "consistency.at.time must be the time of consistency.at.ts (its seconds since the epoch, as an ISO 8601 time).",
  );
  expect((await server.call("GET", `/api/backups/${wrong.backupId}`, { token: user.token })).body.status).not.toBe("completed");
  const unknownKind = await (await backUp({ consistency: { kind: "eventually" } })).complete();
  expect(unknownKind.status).toBe(400);

  const consistent = await backUp({ consistency: { kind: "point-in-time", at: { time: new Date(T * 1000).toISOString(), ts: { t: T, i: 7 } } } });
  expect((await consistent.complete()).status).toBe(200);
  const standalone = await backUp({ consistency: { kind: "standalone" } });
  expect((await standalone.complete()).status).toBe(200);
  const unreported = await backUp({});
  expect((await unreported.complete()).status).toBe(200);

  const view = async (id: string) => {
    const { consistency, consistentAt } = (await server.call("GET", `/api/backups/${id}`, { token: user.token })).body;
    return { consistency, consistentAt };
  };
  expect(await view(consistent.backupId)).toEqual({ consistency: "point-in-time", consistentAt: { time: "2026-09-21T14:13:20.000Z", ts: { t: T, i: 7 } } });
  expect(await view(standalone.backupId)).toEqual({ consistency: "standalone", consistentAt: null });
  expect(await view(unreported.backupId)).toEqual({ consistency: null, consistentAt: null });
  await agent.disconnect();
});
