// The lag the heartbeat reports, measured on the replica-set test server: it grows while the
// server cannot take the database's slices and falls back to 0 once they are stored.
import { afterAll, beforeAll, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MongoClient } from "mongodb";
import type { MongoTestServer } from "../../../../testkit/mongo-server/server.ts";
import { startReplicaSetWithClient, stopWithClient } from "../../../../testkit/mongo-server/replica-set/test-support.ts";
import { waitUntil } from "../../../../testkit/wait-until.ts";
import { createLagMeter } from "./lag-meter.ts";
import { SINK_DOWN_FILE, shipToDirectory } from "./test-support/slice-sink.ts";

let rs: { server: MongoTestServer; client: MongoClient };
let dir: string;
beforeAll(async () => {
  rs = await startReplicaSetWithClient();
  dir = await mkdtemp(join(tmpdir(), "dbvault-lag-"));
});
afterAll(async () => {
  await stopWithClient(rs);
  await rm(dir, { recursive: true, force: true });
});

test("lag grows while slices cannot be uploaded and is 0 once the server has them", async () => {
  const lag = createLagMeter();
  await mkdir(join(dir, "server"), { recursive: true });
  await writeFile(join(dir, "server", SINK_DOWN_FILE), "");
  const shipping = shipToDirectory(rs.client, "shop", Buffer.alloc(32, 7), dir, { lag, retryDelayMs: 50, databaseHeartbeatMs: 200 });
  const orders = rs.client.db("shop").collection("orders");
  let n = 0;
  try {
    await waitUntil(
      async () => {
        await orders.insertOne({ n: n++ });
        return lag.seconds() >= 2;
      },
      { message: "lag of 2 s while the server is down", timeout: 40_000 },
    );
    await rm(join(dir, "server", SINK_DOWN_FILE));
    await waitUntil(() => lag.seconds() === 0, { message: "lag back to 0 once the slices are stored", timeout: 40_000 });
  } finally {
    await shipping.stop();
  }
});
