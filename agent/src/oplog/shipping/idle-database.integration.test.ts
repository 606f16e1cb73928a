// An idle database's chain keeps up with the present (issue 47 §9): on a replica set whose only
// writes are mongod's periodic no-ops, the chain's first slice is sealed as soon as the oplog
// moves (it is what tells the server of a new chain: a rollover's gap alert and new base must not
// wait for the idle seal), and later empty slices every IDLE_SEAL_MS, ending at the newest no-op.
// The shipper's clock is a manual one: only the test moves it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MongoClient } from "mongodb";
import { createManualClock } from "../../../../testkit/manual-clock.ts";
import type { MongoTestServer } from "../../../../testkit/mongo-server/server.ts";
import { startReplicaSetWithClient, stopWithClient } from "../../../../testkit/mongo-server/replica-set/test-support.ts";
import { waitUntil } from "../../../../testkit/wait-until.ts";
import { IDLE_SEAL_MS } from "./ship-oplog.ts";
import { shipToDirectory } from "./test-support/slice-sink.ts";

let rs: { server: MongoTestServer; client: MongoClient };
let dir: string;
beforeAll(async () => {
  // A no-op every 100 ms stands for mongod's every 10 s.
  rs = await startReplicaSetWithClient({ periodicNoopIntervalMs: 100 });
  dir = await mkdtemp(join(tmpdir(), "dbvault-idle-"));
});
afterAll(async () => {
  await stopWithClient(rs);
  await rm(dir, { recursive: true, force: true });
});

test("an idle database: the chain's first slice at once, then an empty slice each idle period, up to the newest no-op", async () => {
  expect(IDLE_SEAL_MS).toBeLessThanOrEqual(50_000); // with mongod's 10 s no-op, "now" restorable within a minute
  const { clock, advance } = createManualClock();
  const shipping = shipToDirectory(rs.client, "shop", Buffer.alloc(32, 7), dir, { now: clock.now, idleSealMs: undefined });
  try {
    // The clock has not moved: only the oplog has (a no-op).
    const first = await waitUntil(() => shipping.sealed[0], { message: "the chain's first slice, sealed on the first no-op", timeout: 10_000 });
    expect(first).toMatchObject({ sequence: 0, reason: "started", entries: 0 });
    expect(shipping.sealed.length).toBe(1);

    advance(IDLE_SEAL_MS);
    const newest = rs.server.replicaSet!.oplog.lastOpTime.ts;
    const second = await waitUntil(() => shipping.sealed.find((slice) => slice.sequence === 1 && slice.end.t >= newest.high), {
      message: "an empty slice after the idle period, ending at a no-op written since",
      timeout: 10_000,
    });
    expect(second).toMatchObject({ entries: 0, reason: "continues", start: first.end });
  } finally {
    await shipping.stop();
  }
}, 60_000);
