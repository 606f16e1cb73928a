// Continuous oplog shipping under a sustained write load (issue 25 §6): the compiled agent's daemon
// (`dbvault-agent run`, set up against a DBVault server on embedded defaults) ships a database of
// the replica-set test server while the bench writes ~1 KB documents into it (inserts, updates and
// deletes in equal shares, bench/support/oplog-workload.ts) at a target rate for some minutes.
//
//   bun bench/pitr-shipping.ts [--minutes 5] [--rate 5000] [--oplog-mb 1024]
//
// Measured from outside: the lag, once a second, as the oplog's newest entry (the workload's last
// write) minus the newest position the server holds slices up to (the timeline the web app reads),
// in whole seconds, which is what a restore to "now" would miss; the agent's resident set (VmRSS
// every 100 ms and VmHWM, reset when the load starts); the CPU of each process. On 2 cores the
// test server, the agent, the DBVault server and this bench compete: the test server (one
// JavaScript thread) may not take the target rate, and the achieved rate is printed and judged.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { readNewestOplogTimestamp } from "../agent/src/oplog/read-oplog.ts";
import { readStatusKb, startConnectedAgent } from "./support/agent-daemon.ts";
import { startDatabaseServer } from "./support/database-servers.ts";
import { buildAgent, createVerdicts, readFlag } from "./support/bench-run.ts";
import { describeLoad, readCpuModel } from "./support/measure-process.ts";
import { runWorkload, seedWindow } from "./support/oplog-workload.ts";
import { coveredThrough, readTimeline, shipFirstSlice, waitForTimeline } from "./support/pitr-daemon.ts";
import { MB, percentile, readCpuSeconds } from "./support/server-process.ts";

const minutes = Number(readFlag("--minutes") ?? 5);
const rate = Number(readFlag("--rate") ?? 5000);
// Enough for the whole run's oplog, so a shipper that falls behind is measured, not rolled over.
const oplogMb = Number(readFlag("--oplog-mb") ?? 1024);
const LAG_LIMIT_S = 15;
const RSS_LIMIT_MB = 150;
const WINDOW = 10_000;
const kbToMb = (kb: number) => (kb * 1024) / MB;
const target = { database: "bench", collection: "load", windowSize: WINDOW };

const agentCommand = [buildAgent()];

console.log(`machine: ${readCpuModel()}, ${availableParallelism()} cores; ${describeLoad()} at the start`);
console.log(`load: ${rate.toLocaleString("en-US")} writes/s for ${minutes} min, ~1 KB documents, inserts/updates/deletes in equal shares`);
const directory = mkdtempSync(join(tmpdir(), "dbvault-pitr-shipping-"));
const mongo = await startDatabaseServer("test-server", { replSet: "rs0", oplogSizeMB: oplogMb });
const client = await new MongoClient(mongo.uri).connect();
const verdicts = createVerdicts();
try {
  await seedWindow(client, target, WINDOW);
  const agent = await startConnectedAgent({ command: agentCommand, databases: { bench: `${mongo.uri}bench` }, directory, plan: "Business" });
  if ("skipped" in agent) throw new Error(agent.skipped);
  try {
    const databaseId = await shipFirstSlice(agent, client, "bench");

    const pid = agent.daemon.pid;
    writeFileSync(`/proc/${pid}/clear_refs`, "5"); // VmHWM from here
    const idleMb = kbToMb(readStatusKb(pid, "VmRSS") ?? 0);
    const cpuBefore = { agent: readCpuSeconds(pid), mongo: readCpuSeconds(mongo.pid), server: readCpuSeconds(agent.server.pid) };
    let peakKb = 0;
    const rssSamples: { at: number; kb: number }[] = [];
    const rssSampler = setInterval(() => {
      const kb = readStatusKb(pid, "VmRSS") ?? 0;
      peakKb = Math.max(peakKb, kb);
      rssSamples.push({ at: Date.now(), kb });
    }, 100);
    const lags: number[] = [];
    const reported: number[] = [];
    const lagClient = await new MongoClient(mongo.uri).connect();
    let sampling = true;
    const lagSampler = (async () => {
      while (sampling) {
        const next = performance.now() + 1000;
        const head = await readNewestOplogTimestamp(lagClient);
        const timeline = await readTimeline(agent, databaseId);
        const covered = coveredThrough(timeline);
        if (covered) lags.push(Math.max(0, head.high - covered.t));
        if (timeline.lagSeconds !== null) reported.push(timeline.lagSeconds);
        await Bun.sleep(Math.max(0, next - performance.now()));
      }
    })();

    const started = performance.now();
    const end = started + minutes * 60_000;
    let lastReport = started;
    const counts = await runWorkload(client, target, rate, () => performance.now() >= end, {
      onTick: (sofar) => {
        if (performance.now() - lastReport < 30_000) return;
        lastReport = performance.now();
        const seconds = (lastReport - started) / 1000;
        console.log(
          `  ${seconds.toFixed(0)} s: ${Math.round(sofar.acknowledged / seconds).toLocaleString("en-US")} writes/s, lag now ${lags.at(-1) ?? "?"} s, agent ${kbToMb(readStatusKb(pid, "VmRSS") ?? 0).toFixed(0)} MB`,
        );
      },
    });
    const seconds = (performance.now() - started) / 1000;
    if (counts.stoppedBy) throw new Error(`a write failed: ${counts.stoppedBy}`);
    // Drained: the server holds everything written (the shipper's catch-up after the load).
    const lastWrite = await readNewestOplogTimestamp(lagClient);
    const drainStarted = performance.now();
    const drained = await waitForTimeline(agent, databaseId, "the last write shipped", 300_000, (timeline) => {
      const covered = coveredThrough(timeline);
      return covered !== undefined && (covered.t > lastWrite.high || (covered.t === lastWrite.high && covered.i >= lastWrite.low));
    });
    const drainSeconds = (performance.now() - drainStarted) / 1000;
    sampling = false;
    await lagSampler;
    clearInterval(rssSampler);
    await lagClient.close();
    peakKb = Math.max(peakKb, readStatusKb(pid, "VmHWM") ?? 0);
    const cpu = {
      agent: readCpuSeconds(pid) - cpuBefore.agent,
      mongo: readCpuSeconds(mongo.pid) - cpuBefore.mongo,
      server: readCpuSeconds(agent.server.pid) - cpuBefore.server,
    };

    const achieved = counts.acknowledged / seconds;
    const sorted = [...lags].sort((a, b) => a - b);
    const p99 = percentile(sorted, 99);
    const peakMb = kbToMb(peakKb);
    const range = drained.ranges.at(-1)!;
    console.log(
      `\nwrites: ${counts.acknowledged.toLocaleString("en-US")} acknowledged in ${seconds.toFixed(0)} s: ${Math.round(achieved).toLocaleString("en-US")}/s (target ${rate.toLocaleString("en-US")})`,
    );
    console.log(
      `shipped: ${drained.slices} slices, ${range.entries.toLocaleString("en-US")} entries in the covered range, ${(drained.bytes / 1e6).toFixed(0)} MB stored; gaps: ${drained.gaps.length}`,
    );
    console.log(
      `lag (oplog head − covered), ${lags.length} samples: p50 ${percentile(sorted, 50)} s, p99 ${p99} s, max ${sorted.at(-1)} s; agent-reported p99 ${percentile(
        [...reported].sort((a, b) => a - b),
        99,
      )} s; drained ${drainSeconds.toFixed(1)} s after the last write`,
    );
    console.log(`agent: RSS ${idleMb.toFixed(0)} MB before the load, peak ${peakMb.toFixed(0)} MB; CPU during the run (${seconds.toFixed(0)} s):`);
    // The chain's first slice asks for a base backup at once, which the daemon takes while it
    // ships: say what shipping alone peaked at, beside the verdict on the whole.
    const backups = backupWindows(agent.daemon.log());
    const outside = rssSamples.filter((sample) => !backups.some((window) => sample.at >= window.from && sample.at <= window.to));
    console.log(
      `  ${backups.length} backup(s) ran during the load (${backups.map((window) => `${((window.to - window.from) / 1000).toFixed(1)} s`).join(", ") || "none"}); peak RSS outside them ${kbToMb(Math.max(0, ...outside.map((sample) => sample.kb))).toFixed(0)} MB (100 ms samples)`,
    );
    // A peak is one moment; the median and the 90th percentile say where the shipper sits (and
    // move far less from run to run, so they compare builds).
    const outsideKb = outside.map((sample) => sample.kb).sort((a, b) => a - b);
    console.log(`  RSS outside them: median ${kbToMb(percentile(outsideKb, 50)).toFixed(0)} MB, p90 ${kbToMb(percentile(outsideKb, 90)).toFixed(0)} MB`);
    console.log(`  agent ${cpu.agent.toFixed(0)} s, test server ${cpu.mongo.toFixed(0)} s, DBVault server ${cpu.server.toFixed(0)} s`);
    const { check } = verdicts;
    check(
      achieved >= rate * 0.95,
      `sustained ${Math.round(achieved).toLocaleString("en-US")} writes/s for ${minutes} min (target ${rate.toLocaleString("en-US")})`,
    );
    check(p99 < LAG_LIMIT_S && drained.gaps.length === 0, `lag p99 ${p99} s, ${drained.gaps.length} gaps (target < ${LAG_LIMIT_S} s, none)`);
    check(peakMb < RSS_LIMIT_MB, `agent peak RSS ${peakMb.toFixed(0)} MB (target < ${RSS_LIMIT_MB} MB)`);
  } finally {
    await agent.stop();
  }
} finally {
  await client.close();
  await mongo.stop();
  rmSync(directory, { recursive: true, force: true });
}
verdicts.finish();

/** When each backup the daemon logged ran, from its first log line to its last (verification included), with 0.3 s around. */
function backupWindows(log: string): { from: number; to: number }[] {
  const byBackup = new Map<string, { from: number; to: number }>();
  for (const line of log.split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { time?: string; backupId?: string };
    if (!entry.backupId || !entry.time) continue;
    const at = Date.parse(entry.time);
    const window = byBackup.get(entry.backupId) ?? { from: at - 300, to: at + 300 };
    window.to = at + 300;
    byBackup.set(entry.backupId, window);
  }
  return [...byBackup.values()];
}
