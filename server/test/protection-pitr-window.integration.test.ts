// The admin console's plan editor against "Protect backups": `PUT /api/admin/plans/{id}
// {pitrWindowHours: 0}` made the next pruning pass delete a protected organization's oplog slices,
// which the owner could not have done (turning point-in-time recovery off is refused while
// protected). A plan change never shortens what a protected organization keeps: pruning keeps the
// longer of the plan's window and the one protection locked in.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { pitrSlices } from "@db/schema";
import { prunePitrSlices } from "../src/modules/pitr/retention";
import { startTestServer, type TestServer } from "./harness";
import { uploadSlice, userShippingPitr } from "./pitr-support";
import { protectBackupsOf } from "./protect-backups";

let server: TestServer;
let base: string;
beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
}, 60_000);
afterAll(() => server.close());

/** A user of the Pro plan shipping "shop", with slices that ended 2 days and 1 hour ago (no base backup: the window alone decides). */
async function shipperWithSlices(chain: string) {
  const shipper = await userShippingPitr(server, base, "shop");
  const now = Math.floor(server.ctx.now().getTime() / 1000);
  const ends = [now - 2 * 86_400, now - 3600];
  let start = `${ends[0]! - 60},1`;
  for (const [sequence, end] of ends.entries()) {
    await uploadSlice(server.ctx, base, shipper.agent, "shop", { chain, sequence, start, end: `${end},1` });
    start = `${end},1`;
  }
  return shipper;
}
const slicesOf = async (databaseId: string) => (await server.ctx.db.select().from(pitrSlices).where(eq(pitrSlices.databaseId, databaseId))).length;

test("a plan's window set to 0 by an admin deletes no slice of a protected organization; an unprotected one's go", async () => {
  const admin = await server.registerAdmin();
  const protectedOne = await shipperWithSlices("a".repeat(32));
  await protectBackupsOf(server, protectedOne.user);
  const unprotected = await shipperWithSlices("b".repeat(32));
  expect(protectedOne.plan.pitrWindowHours).toBeGreaterThan(48);

  const edited = await server.call("PUT", `/api/admin/plans/${protectedOne.plan.id}`, { token: admin.token, body: { pitrWindowHours: 0 } });
  expect(edited.status).toBe(200);
  await prunePitrSlices(server.ctx);

  expect(await slicesOf(unprotected.databaseId)).toBe(0);
  expect(await slicesOf(protectedOne.databaseId)).toBe(2);
});
