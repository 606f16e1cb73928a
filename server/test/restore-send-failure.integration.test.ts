// A restore whose command cannot be sent leaves nothing pending. The command crosses the cluster
// bus (Postgres NOTIFY), which refuses a payload of 8,000 bytes or more: a restore of a backup with
// a long list of collections is such a command. The restore row is committed before the send, so
// it used to stay pending, answering 500, then 409 to every retry, until the sweep failed it two
// minutes later. Now the restore is failed at once, naming why, and the answer is 503.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { restores } from "@db/schema";
import { startTestServer, type TestServer } from "./harness";
import { consistentBackup, userShippingPitr } from "./pitr-support";

let server: TestServer;
let token: string;
let agent: Awaited<ReturnType<typeof userShippingPitr>>["agent"];
let backupId: string;

beforeAll(async () => {
  server = await startTestServer();
  const base = server.listen();
  const shipping = await userShippingPitr(server, base, "shop");
  token = shipping.user.token;
  agent = shipping.agent;
  backupId = await consistentBackup(server.ctx, agent, shipping.databaseId, { t: 1_790_000_000, i: 1 });
}, 60_000);
afterAll(() => server.close());

/** 100 names of 100 characters: about 10 KB of command, past what NOTIFY carries. */
const LONG_LIST = Array.from({ length: 100 }, (_, n) => `${"c".repeat(97)}${String(n).padStart(3, "0")}`);
const restore = (collections?: string[]) =>
  server.call("POST", `/api/backups/${backupId}/restore`, { token, body: { databaseName: "shop", ...(collections ? { collections } : {}) } });

test("a command the bus refuses: 503 naming it, the restore failed at once, and a retry is not refused as running", async () => {
  const first = await restore(LONG_LIST);
  expect(first.status).toBe(503);
  expect(first.body).toEqual({
    message: "The restore could not be sent to the agent, so nothing was changed. Try again in a moment.",
    code: "SERVICE_UNAVAILABLE",
  });
  const rows = await server.ctx.db.select().from(restores).where(eq(restores.backupId, backupId));
  expect(rows.map((row) => [row.status, row.error])).toEqual([
    ["failed", "The restore could not be sent to the agent, so nothing was changed. Try again in a moment."],
  ]);
  expect(agent.received.filter((message) => message.type === "restore")).toEqual([]);

  // Nothing blocks the target: the same request is answered the same way, not 409 "already running",
  // and a restore whose command fits goes out.
  expect((await restore(LONG_LIST)).status).toBe(503);
  const fits = await restore(LONG_LIST.slice(0, 3));
  expect(fits.status).toBe(201);
  const command = await agent.waitFor("restore");
  expect(command.collections).toEqual(LONG_LIST.slice(0, 3));
});
