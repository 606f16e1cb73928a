// Two builds of the agent's dump, back to back on the same database: is a change faster? On a
// shared 2-core machine the wall time of one run swings 2× with the others' load, and the
// medians of dump-restore.ts's rotation (six commands a round) put minutes between the runs
// they compare. Here each pair runs within seconds, in alternating order, and the verdict is
// the median of the per-pair ratios and how many pairs the change won: a change that wins about
// half the pairs did not measurably help, whatever one median says.
//
//   bun bench/dump-paired.ts AFTER BEFORE [--pairs 15] [--size 100MB]
//
// AFTER and BEFORE are agent binaries (build the old one in a scratch worktree, or copy
// dist/dbvault-agent aside before the change). The database is dump-restore.ts's (20 small
// collections with 40 % of --size, one large collection with the rest) on the test server.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { encodeMasterKey, generateMasterKey } from "../agent/src/archive/index.ts";
import { startDatabaseServer } from "./support/database-servers.ts";
import { generateDatabase, layoutManyAndOneLarge } from "./support/generate-database.ts";
import { describeLoad, type Measurement, measureProcess, median, readCpuModel } from "./support/measure-process.ts";

const args = process.argv.slice(2);
const readFlag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const [after, before] = args;
if (!after || !before || after.startsWith("--") || before.startsWith("--")) {
  console.error("usage: bun bench/dump-paired.ts AFTER BEFORE [--pairs 15] [--size 100MB]");
  process.exit(2);
}
const pairs = Number(readFlag("--pairs") ?? 15);
const sizeFlag = /^(\d+)\s*(MB|GB)$/i.exec(readFlag("--size") ?? "100MB");
if (!sizeFlag) {
  console.error("dump-paired: --size takes a number of MB or GB (100MB, 1GB)");
  process.exit(2);
}
const size = Number(sizeFlag[1]) * (sizeFlag[2]!.toUpperCase() === "GB" ? 1e9 : 1e6);

const dir = mkdtempSync(join(tmpdir(), "dbvault-dump-paired-"));
const server = await startDatabaseServer("test-server");
try {
  const client = await new MongoClient(server.uri).connect();
  await generateDatabase(client, "bench", layoutManyAndOneLarge(size, 20), () => {}, true);
  await client.close();
  const config = join(dir, "agent.json");
  const databases = [{ name: "bench", uri: `${server.uri}bench` }];
  writeFileSync(config, JSON.stringify({ version: 1, masterKey: encodeMasterKey(generateMasterKey()), databases, tools: { mode: "builtin" } }), {
    mode: 0o600,
  });
  const dump = (binary: string) =>
    measureProcess([binary, "dump", "--db", "bench", "--out", join(dir, "dump.enc.dbvault"), "--config", config, "--quiet", "--force"]);

  console.log(`machine: ${readCpuModel()}; ${describeLoad()} at the start; ${pairs} pairs, ${(size / 1e6).toFixed(0)} MB`);
  const afterRuns: Measurement[] = [];
  const beforeRuns: Measurement[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    if (pair % 2 === 0) {
      afterRuns.push(dump(after));
      beforeRuns.push(dump(before));
    } else {
      beforeRuns.push(dump(before));
      afterRuns.push(dump(after));
    }
  }
  const describe = (name: string, runs: Measurement[]) =>
    `${name}  wall ${median(runs.map((run) => run.seconds)).toFixed(2)} s  CPU ${median(runs.map((run) => run.cpuSeconds)).toFixed(2)} s  peak ${Math.max(...runs.map((run) => run.peakMb ?? 0)).toFixed(0)} MB  runs: ${runs.map((run) => run.seconds.toFixed(2)).join(" ")}`;
  console.log(describe("after ", afterRuns));
  console.log(describe("before", beforeRuns));
  const speedups = afterRuns.map((run, i) => beforeRuns[i]!.seconds / run.seconds);
  const wins = speedups.filter((speedup) => speedup > 1).length;
  console.log(
    `after/before speed: median of the pairs ${median(speedups).toFixed(2)}×, after faster in ${wins} of ${pairs} pairs; ${describeLoad()} at the end`,
  );
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
