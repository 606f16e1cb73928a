// One point-in-time chain, checked and replayed as a restore does it (the slices streamed and
// authenticated, then read again for the replay), in its own process so that its peak memory is
// its own: prints {"entries":N,"peakMb":M} (VmHWM, the kernel's high-water mark of its RSS).
//
//   bun bench/support/pitr-chain-child.ts DIR KEY_HEX START_T,I UNTIL_T,I
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { pointInTimeReplay } from "../../agent/src/dump/point-in-time-replay.ts";
import { BENCH_DATABASE } from "./pitr-slices.ts";

const [directory, keyHex, startText, untilText] = process.argv.slice(2) as [string, string, string, string];
const time = (text: string) => {
  const [t, i] = text.split(",").map(Number) as [number, number];
  return { t, i };
};
const names = (await readdir(directory)).filter((name) => name.endsWith(".enc.dbvault")).sort();
const replay = pointInTimeReplay({
  files: names.map((name) => ({ name, path: join(directory, name) })),
  keys: { masterKey: Buffer.from(keyHex, "hex") },
  until: time(untilText),
  privateCopies: {},
});
try {
  await replay.check(BENCH_DATABASE);
  let entries = 0;
  for await (const entry of await replay.entriesAfter(time(startText), BENCH_DATABASE)) entries += entry.byteLength > 0 ? 1 : 0;
  const status = await readFile("/proc/self/status", "utf8");
  const peakKb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
  console.log(JSON.stringify({ entries, peakMb: Math.round((peakKb * 1024) / 1e6) }));
} finally {
  await replay.remove();
}
