// The recovery point when the source dies (issue 25 §6): point-in-time recovery on, the compiled
// agent's daemon shipping, writes running (bench/support/oplog-workload.ts), then the replica-set
// test server killed (SIGKILL: it keeps nothing, as a lost machine). Once the DBVault server's
// timeline stops moving, its newest covered position is "latest"; a fresh test server takes the
// old one's port, and the database is restored to "latest" through the API as the web app asks
// for it (POST /api/restores/point-in-time, the base backup taken before the writes plus the
// slices). Then the acknowledged writes missing from the restored database are counted.
//
//   bun bench/pitr-rpo.ts [--seconds 60] [--rate 2000]
//
// The workload inserts increasing `_id`s and deletes the oldest, so the restored collection is a
// window of `_id`s; every acknowledged write of a tick whose last insert is past the window's end
// was lost, and the loss in time is from the first lost tick's acknowledgement to the kill.
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { freePort, poll, startConnectedAgent } from "./support/agent-daemon.ts";
import { type DatabaseServer, startDatabaseServer } from "./support/database-servers.ts";
import { buildAgent, createVerdicts, readFlag } from "./support/bench-run.ts";
import { describeLoad, readCpuModel } from "./support/measure-process.ts";
import { runWorkload, seedWindow } from "./support/oplog-workload.ts";
import { coveredThrough, readTimeline, shipFirstSlice, type Timeline } from "./support/pitr-daemon.ts";

const seconds = Number(readFlag("--seconds") ?? 60);
const rate = Number(readFlag("--rate") ?? 2000);
const RPO_LIMIT_S = 15;
// The timeline is taken as final once it has not moved for this long after the kill.
const SETTLED_MS = 20_000;
const WINDOW = 5_000;
const target = { database: "bench", collection: "load", windowSize: WINDOW };

const agentCommand = [buildAgent()];

console.log(`machine: ${readCpuModel()}, ${availableParallelism()} cores; ${describeLoad()} at the start`);
console.log(`load: ${rate.toLocaleString("en-US")} writes/s for ${seconds} s, then the test server killed`);
const directory = mkdtempSync(join(tmpdir(), "dbvault-pitr-rpo-"));
const port = await freePort();
let mongo: DatabaseServer = await startDatabaseServer("test-server", { replSet: "rs0", port });
const verdicts = createVerdicts();
try {
  let client = await new MongoClient(mongo.uri).connect();
  await seedWindow(client, target, WINDOW);
  const agent = await startConnectedAgent({ command: agentCommand, databases: { bench: `${mongo.uri}bench` }, directory, plan: "Business" });
  if ("skipped" in agent) throw new Error(agent.skipped);
  try {
    const databaseId = await shipFirstSlice(agent, client, "bench");
    const { id: backupId } = await agent.api<{ id: string }>("POST", "/api/backups", { databaseName: "bench" });
    await poll("the base backup", 300_000, 250, async () => {
      const backup = await agent.api<{ status: string; error: string | null }>("GET", `/api/backups/${backupId}`);
      if (backup.status === "failed") throw new Error(`the base backup failed: ${backup.error}`);
      return backup.status === "completed" ? true : undefined;
    });

    const startedAt = Date.now();
    let killedAt = 0;
    const killer = (async () => {
      await Bun.sleep(seconds * 1000);
      killedAt = Date.now();
      await mongo.kill();
    })();
    const counts = await runWorkload(client, target, rate, () => false, { recordTicks: true });
    await killer;
    await client.close().catch(() => undefined);
    const achieved = counts.acknowledged / ((killedAt - startedAt) / 1000);
    console.log(
      `writes: ${counts.acknowledged.toLocaleString("en-US")} acknowledged (${Math.round(achieved).toLocaleString("en-US")}/s) before the kill; the writer stopped on: ${counts.stoppedBy}`,
    );

    // "Latest": what the server holds once nothing more arrives from the agent.
    let timeline: Timeline = await readTimeline(agent, databaseId);
    let movedAt = performance.now();
    while (performance.now() - movedAt < SETTLED_MS) {
      await Bun.sleep(1000);
      const now = await readTimeline(agent, databaseId);
      if (now.ranges.at(-1)?.to.ts !== timeline.ranges.at(-1)?.to.ts) movedAt = performance.now();
      timeline = now;
    }
    const latest = coveredThrough(timeline)!;
    console.log(`latest covered position: ${latest.t},${latest.i} (${new Date(latest.t * 1000).toISOString()}), ${timeline.slices} slices`);

    // A fresh, empty server where the old one was; the agent restores into it.
    mongo = await startDatabaseServer("test-server", { replSet: "rs0", port });
    client = await new MongoClient(mongo.uri).connect();
    const restoreStarted = performance.now();
    const requested = await agent.api<{ restore: { id: string } }>("POST", "/api/restores/point-in-time", {
      databaseId,
      at: `${latest.t},${latest.i}`,
      confirmation: "bench",
    });
    const restore = await poll("the restore", 600_000, 500, async () => {
      const all = await agent.api<{ id: string; status: string; error: string | null }[]>("GET", "/api/backups/restores/all");
      const found = all.find((entry) => entry.id === requested.restore.id);
      return found && (found.status === "completed" || found.status === "failed") ? found : undefined;
    });
    if (restore.status !== "completed") throw new Error(`the restore failed: ${restore.error}\n${agent.daemon.log().slice(-3000)}`);
    const restoreSeconds = (performance.now() - restoreStarted) / 1000;

    const ids = (
      await client
        .db("bench")
        .collection<{ _id: number }>("load")
        .find({}, { projection: { _id: 1 } })
        .toArray()
    ).map((doc) => doc._id);
    const newest = Math.max(...ids);
    const oldest = Math.min(...ids);
    const contiguous = ids.length === newest - oldest + 1;
    const lostTicks = counts.ticks.filter((entry) => entry.lastId > newest);
    const lostWrites = lostTicks.reduce((sum, entry) => sum + entry.operations, 0);
    const lostSeconds = lostTicks.length === 0 ? 0 : (killedAt - lostTicks[0]!.at) / 1000;
    await client.close();
    console.log(
      `restored to latest in ${restoreSeconds.toFixed(1)} s: _id ${oldest}…${newest} (${ids.length.toLocaleString("en-US")} documents, ${contiguous ? "contiguous" : "NOT contiguous"})`,
    );
    console.log(
      `lost: ${lostWrites.toLocaleString("en-US")} acknowledged writes (${lostTicks.length} ticks of ${counts.ticks.length}), the last ${lostSeconds.toFixed(1)} s before the kill`,
    );
    const { check } = verdicts;
    check(contiguous, "the restored window is whole (no acknowledged insert missing inside it)");
    check(
      lostSeconds <= RPO_LIMIT_S,
      `restore to latest lost ${lostWrites.toLocaleString("en-US")} acknowledged writes, ${lostSeconds.toFixed(1)} s worth (target ≤ ${RPO_LIMIT_S} s)`,
    );
  } finally {
    await agent.stop();
  }
} finally {
  await mongo.stop();
  rmSync(directory, { recursive: true, force: true });
}
verdicts.finish();
