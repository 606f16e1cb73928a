// Peak memory of a point-in-time restore's chain of slices (issue 25, section 3): the slices are
// checked whole before the target changes, then replayed. For each chain size, slices of 1 KB
// incompressible entries are sealed into a directory, and a process of its own does what the
// offline `restore --oplog DIR --until` does with them (bench/support/pitr-chain-child.ts: every
// slice streamed, authenticated and copied privately, then its entries read and authenticated
// again for the replay) and reports its VmHWM. The MongoDB side of a restore (the base backup, the
// applying) is left out: it is the same for any chain, and its memory is dump-memory.ts's.
// PASS when the peak at the largest chain exceeds the smallest's by less than --growth-mb (the
// chain is not held in memory) and stays under --limit-mb, and the private copies are gone.
//
//   bun bench/pitr-chain-memory.ts [--sizes 50MB,400MB] [--limit-mb 150] [--growth-mb 40]
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { generateMasterKey } from "../agent/src/archive/index.ts";
import { writeSliceChain } from "./support/pitr-slices.ts";

const MB = 1_000_000;
const child = resolve(import.meta.dir, "support/pitr-chain-child.ts");

const options = { sizes: [50 * MB, 400 * MB], limitMb: 150, growthMb: 40 };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const [name, value] = [argv[i], argv[i + 1]];
  if (name === "--sizes" && value) options.sizes = value.split(",").map((size) => Number(/^(\d+)MB$/i.exec(size.trim())?.[1] ?? Number.NaN) * MB);
  else if (name === "--limit-mb" && Number(value) > 0) options.limitMb = Number(value);
  else if (name === "--growth-mb" && Number(value) > 0) options.growthMb = Number(value);
  else {
    console.error(`pitr-chain-memory: unknown argument ${name}\nusage: bun bench/pitr-chain-memory.ts [--sizes 50MB,400MB] [--limit-mb 150] [--growth-mb 40]`);
    process.exit(2);
  }
}
if (options.sizes.some((size) => !(size > 0))) {
  console.error("pitr-chain-memory: --sizes takes sizes in MB, e.g. 50MB,400MB");
  process.exit(2);
}

const masterKey = generateMasterKey();
const results: { size: number; entries: number; peakMb: number; copiesLeft: number }[] = [];
for (const size of options.sizes) {
  const slices = await mkdtemp(join(tmpdir(), "dbvault-bench-slices-"));
  const temp = await mkdtemp(join(tmpdir(), "dbvault-bench-tmp-"));
  try {
    const chain = await writeSliceChain(slices, size, masterKey);
    const at = (time: { t: number; i: number }) => `${time.t},${time.i}`;
    const run = Bun.spawnSync(["bun", child, slices, Buffer.from(masterKey).toString("hex"), at(chain.start), at(chain.end)], {
      stderr: "pipe",
      env: { ...process.env, TMPDIR: temp },
    });
    if (run.exitCode !== 0) throw new Error(`the chain of ${size / MB} MB failed: ${run.stderr.toString().trim()}`);
    const report = JSON.parse(run.stdout.toString()) as { entries: number; peakMb: number };
    results.push({ size, ...report, copiesLeft: (await readdir(temp)).length });
  } finally {
    await rm(slices, { recursive: true, force: true });
    await rm(temp, { recursive: true, force: true });
  }
}

console.log("| slices | entries | peak RSS | private copies left |");
console.log("|---|---|---|---|");
for (const result of results) console.log(`| ${result.size / MB} MB | ${result.entries} | ${result.peakMb} MB | ${result.copiesLeft} |`);
const smallest = results[0]!;
const largest = results.at(-1)!;
const growth = largest.peakMb - smallest.peakMb;
const ok = growth < options.growthMb && results.every((result) => result.peakMb < options.limitMb && result.copiesLeft === 0);
console.log(
  ok
    ? `PASS: ${largest.size / MB} MB of slices peaked at ${largest.peakMb} MB RSS, ${growth} MB more than ${smallest.size / MB} MB (limit ${options.limitMb} MB, growth < ${options.growthMb} MB); no copy left`
    : `FAIL: peaks ${results.map((result) => `${result.peakMb} MB`).join(", ")} (limit ${options.limitMb} MB, growth < ${options.growthMb} MB), copies left ${results.map((result) => result.copiesLeft).join(", ")}`,
);
process.exit(ok ? 0 : 1);
