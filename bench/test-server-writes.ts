// How many writes a second the replica-set test server (testkit/mongo-server, `--replSet`) takes
// on its own: the point-in-time benches' load (bench/support/oplog-workload.ts: ~1 KB documents,
// inserts, updates by `_id` and deletes by `_id` in equal shares, one unordered bulk write per
// 100 ms) with every write also logged in its oplog. pitr-shipping.ts needs 5,000/s while the agent
// and the DBVault server share the machine, so the server alone must take well over that.
//
//   bun bench/test-server-writes.ts [--seconds 20] [--rate 20000] [--oplog-mb 1024] [--runs 1] [--tail]
//
// A rate the server cannot reach makes every tick late, so the achieved rate is its maximum.
// `--tail` adds the read the agent's shipping makes: a tailable awaitData cursor on the oplog
// (`ts` after the start, 1,000 entries a batch, raw), drained as fast as the server answers.
// Prints writes/s and the test server's CPU seconds (user + system, /proc) per run.
// BENCH_MONGO_FLAGS="--cpu-prof --cpu-prof-dir=DIR" profiles the test server.
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { createVerdicts, readFlag } from "./support/bench-run.ts";
import { startDatabaseServer } from "./support/database-servers.ts";
import { describeLoad, readCpuModel } from "./support/measure-process.ts";
import { runWorkload, seedWindow } from "./support/oplog-workload.ts";
import { readCpuSeconds } from "./support/server-process.ts";

const seconds = Number(readFlag("--seconds") ?? 20);
const rate = Number(readFlag("--rate") ?? 20_000);
const oplogMb = Number(readFlag("--oplog-mb") ?? 1024);
const runs = Number(readFlag("--runs") ?? 1);
const tail = process.argv.includes("--tail");
/** What pitr-shipping.ts needs with the agent and the DBVault server beside it (issue 25 §6). */
const TARGET_PER_SECOND = 8_000;
const WINDOW = 10_000;
const target = { database: "bench", collection: "load", windowSize: WINDOW };

console.log(`machine: ${readCpuModel()}, ${availableParallelism()} cores; ${describeLoad()} at the start`);
console.log(`load: ${rate.toLocaleString("en-US")} writes/s asked for ${seconds} s, ~1 KB documents, inserts/updates/deletes in equal shares`);
const verdicts = createVerdicts();
const rates: number[] = [];
for (let run = 1; run <= runs; run++) {
  const mongo = await startDatabaseServer("test-server", { replSet: "rs0", oplogSizeMB: oplogMb });
  const client = await new MongoClient(mongo.uri).connect();
  try {
    await seedWindow(client, target, WINDOW);
    const tailing = tail ? await startTail(mongo.uri) : undefined;
    const cpuBefore = readCpuSeconds(mongo.pid);
    const started = performance.now();
    const end = started + seconds * 1000;
    const counts = await runWorkload(client, target, rate, () => performance.now() >= end);
    const tailed = await tailing?.stop();
    const elapsed = (performance.now() - started) / 1000;
    const cpu = readCpuSeconds(mongo.pid) - cpuBefore;
    if (counts.stoppedBy) throw new Error(`a write failed: ${counts.stoppedBy}`);
    const achieved = counts.acknowledged / elapsed;
    rates.push(achieved);
    console.log(
      `run ${run}: ${counts.acknowledged.toLocaleString("en-US")} writes in ${elapsed.toFixed(1)} s: ${Math.round(achieved).toLocaleString("en-US")}/s; ` +
        `test server CPU ${cpu.toFixed(1)} s (${((cpu * 1e6) / counts.acknowledged).toFixed(0)} µs a write)` +
        `${tailed === undefined ? "" : `, ${tailed.toLocaleString("en-US")} entries tailed`}; ${describeLoad()}`,
    );
  } finally {
    await client.close();
    await mongo.stop();
  }
}
/** Starts support/tail-oplog.ts (its own process, as the agent is) once its cursor is open; `stop` answers the entries it read. */
async function startTail(uri: string): Promise<{ stop(): Promise<number> }> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "support/tail-oplog.ts"), uri], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let output = "";
  const readUntil = async (done: () => boolean) => {
    while (!done()) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      output += decoder.decode(value);
    }
  };
  await readUntil(() => output.includes("tailing\n"));
  return {
    async stop() {
      child.stdin.end();
      await readUntil(() => false);
      await child.exited;
      return Number(output.trim().split("\n").at(-1));
    },
  };
}

const best = Math.max(...rates);
verdicts.check(
  best >= TARGET_PER_SECOND,
  `best of ${runs}: ${Math.round(best).toLocaleString("en-US")} writes/s ${tail ? "with the oplog tailed" : "alone"} (target ≥ ${TARGET_PER_SECOND.toLocaleString("en-US")})`,
);
verdicts.finish();
