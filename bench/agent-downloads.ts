// What compressing the agent downloads buys and costs: for each agent build in dist/ (or
// AGENT_DIR), the size sent and the time to make the copy the server keeps (zstd level 3 and gzip
// level 6, as server/src/modules/downloads/compressed-copies.ts makes them), one core.
//   bun bench/agent-downloads.ts [--dir PATH]
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { constants, gzipSync, zstdCompressSync } from "node:zlib";

const index = process.argv.indexOf("--dir");
const dir = resolve(index > 0 ? process.argv[index + 1]! : join(import.meta.dir, "..", "dist"));
const files = readdirSync(dir)
  .filter((name) => /^dbvault-agent-[a-z0-9-]+(\.exe)?$/.test(name))
  .sort();
if (files.length === 0) {
  console.error(`no agent builds in ${dir} (npm run build:agent -- --all)`);
  process.exit(1);
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const time = <T>(run: () => T): [T, number] => {
  const started = performance.now();
  const result = run();
  return [result, (performance.now() - started) / 1000];
};

console.log("build                          size MiB   zstd-3 MiB (%)  s     gzip-6 MiB (%)  s");
for (const name of files) {
  const bytes = await Bun.file(join(dir, name)).bytes();
  const [zstd, zstdSeconds] = time(() => zstdCompressSync(bytes, { params: { [constants.ZSTD_c_compressionLevel]: 3 } }));
  const [gzip, gzipSeconds] = time(() => gzipSync(bytes, { level: 6 }));
  const share = (part: number) => `${((part / bytes.byteLength) * 100).toFixed(0)}%`;
  console.log(
    `${name.padEnd(31)}${mib(bytes.byteLength).padStart(8)}   ${mib(zstd.byteLength).padStart(6)} (${share(zstd.byteLength)})  ${zstdSeconds.toFixed(1).padStart(4)}   ${mib(gzip.byteLength).padStart(6)} (${share(gzip.byteLength)})  ${gzipSeconds.toFixed(1).padStart(4)}`,
  );
}
