// A restore command past what the cluster bus carries (Postgres NOTIFY refuses 8,000 bytes or
// more): a restore of a backup with a long list of collections is such a command. It used to
// answer 500 and leave the restore pending, refusing every retry with 409 until the sweep failed
// it. The command now goes into the agent job ledger with its row, and the bus only says "agent X
// has work": it is delivered whole, whatever its size.
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

test("a command past what NOTIFY carries is delivered whole, and the restore waits for the agent", async () => {
  const requested = await restore(LONG_LIST);
  expect(requested.status).toBe(201);
  const command = await agent.waitFor("restore");
  expect(command.collections).toEqual(LONG_LIST);
  expect(JSON.stringify(command).length).toBeGreaterThan(8000);
  const rows = await server.ctx.db.select().from(restores).where(eq(restores.backupId, backupId));
  expect(rows.map((row) => [row.status, row.error])).toEqual([["pending", null]]);
});
