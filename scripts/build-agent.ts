// Builds the agent into one self-contained executable for this machine: dist/dbvault-agent.
//   bun scripts/build-agent.ts [--outfile PATH]
// Only the host target is built: other targets (bun-linux-x64-musl, bun-linux-arm64,
// bun-darwin-x64, bun-darwin-arm64, bun-windows-x64) need Bun to download that platform's
// runtime, which the build machines cannot reach. docs/agent.md lists the commands for them.
import { mkdir, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");

function readOutfile(argv: string[]): string {
  const index = argv.indexOf("--outfile");
  if (index >= 0) {
    const value = argv[index + 1];
    if (!value) {
      console.error("build-agent: --outfile needs a path");
      process.exit(2);
    }
    return resolve(value);
  }
  return resolve(root, "dist", "dbvault-agent");
}

const outfile = readOutfile(process.argv.slice(2));
await mkdir(dirname(outfile), { recursive: true });
const started = performance.now();
const build = Bun.spawnSync(
  [process.execPath, "build", "--compile", "--minify", resolve(root, "agent/src/cli.ts"), "--outfile", outfile],
  { cwd: root, stdout: "pipe", stderr: "pipe" },
);
if (build.exitCode !== 0) {
  console.error(`build-agent: bun build failed (exit ${build.exitCode})`);
  process.stderr.write(build.stderr);
  process.stderr.write(build.stdout);
  process.exit(1);
}
const size = (await stat(outfile)).size;
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`build-agent: ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB, ${process.platform}-${process.arch}) in ${seconds} s`);
