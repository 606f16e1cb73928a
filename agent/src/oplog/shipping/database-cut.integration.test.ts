// A shipper cut off from its database while the application keeps writing (issue 47 §4): the lag
// it reports grows with the time cut off and the database is reported unreachable, instead of a
// lag of 0 (an awaitData tail on a silent link just waits); once the link heals, the writes made
// meanwhile are shipped and the database answers again.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import type { MongoTestServer } from "../../../../testkit/mongo-server/server.ts";
import { startReplicaSetWithClient, stopWithClient } from "../../../../testkit/mongo-server/replica-set/test-support.ts";
import { startTcpProxy, type TcpProxy } from "../../../../testkit/tcp-proxy.ts";
import { waitUntil } from "../../../../testkit/wait-until.ts";
import { createLagMeter } from "./lag-meter.ts";
import { shipToDirectory } from "./test-support/slice-sink.ts";

let rs: { server: MongoTestServer; client: MongoClient };
let proxy: TcpProxy;
let shipperClient: MongoClient;
let dir: string;
beforeAll(async () => {
  rs = await startReplicaSetWithClient();
  proxy = await startTcpProxy(rs.server.port);
  // As the daemon connects (a socket timeout, so a silent link fails instead of hanging), shorter.
  shipperClient = await new MongoClient(`mongodb://127.0.0.1:${proxy.port}/?directConnection=true`, {
    serverSelectionTimeoutMS: 1_000,
    socketTimeoutMS: 3_000,
    heartbeatFrequencyMS: 500,
  }).connect();
  dir = await mkdtemp(join(tmpdir(), "dbvault-cut-"));
});
afterAll(async () => {
  await shipperClient.close().catch(() => undefined);
  await proxy.close();
  await stopWithClient(rs);
  await rm(dir, { recursive: true, force: true });
});

test("cut from its database, the shipper reports a growing lag and the database unreachable; healed, it ships what was written", async () => {
  const lag = createLagMeter();
  const shipping = shipToDirectory(shipperClient, "shop", Buffer.alloc(32, 7), dir, { lag, databaseHeartbeatMs: 200 });
  const orders = rs.client.db("shop").collection("orders");
  let n = 0;
  const write = async () => void (await orders.insertOne({ n: n++ }));
  try {
    await waitUntil(
      async () => {
        await write();
        return shipping.sealed.some((slice) => slice.entries > 0) && lag.report().unreachableSeconds === undefined && lag.seconds() <= 1;
      },
      { message: "shipping under way, the database answering", timeout: 20_000 },
    );
    proxy.cut();
    // The application keeps writing (straight to the database); the shipper hears nothing.
    const report = await waitUntil(
      async () => {
        await write();
        const now = lag.report();
        return now.seconds >= 4 && (now.unreachableSeconds ?? 0) >= 3 ? now : undefined;
      },
      { message: "a lag of 4 s and the database reported unreachable while cut", timeout: 30_000 },
    );
    expect(report.seconds).toBeGreaterThanOrEqual(report.unreachableSeconds!);
    const writtenWhileCut = n - 1;
    proxy.heal();
    await waitUntil(
      async () => {
        await write();
        const shipped = shipping.sealed.reduce((sum, slice) => sum + slice.entries, 0);
        return lag.report().unreachableSeconds === undefined && shipped >= writtenWhileCut + 1 && lag.seconds() <= 2;
      },
      { message: "the database answering again and the writes made while cut shipped", timeout: 40_000 },
    );
  } finally {
    await shipping.stop();
  }
}, 120_000);
