// Builds the agent into self-contained executables with `bun build --compile`.
//   bun scripts/build-agent.ts                  this machine's: dist/dbvault-agent
//   bun scripts/build-agent.ts --all            also every platform: dist/dbvault-agent-<platform>[.exe]
//   bun scripts/build-agent.ts --target ID      one platform (linux-arm64, windows-x64, …)
//   bun scripts/build-agent.ts --outfile PATH   this machine's, elsewhere
// Other platforms' Bun runtimes come from the npm registry on first use (a few seconds each).
// The platforms are protocol/agent-platforms.ts: the server offers the same names for download.
import { mkdir, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { AGENT_PLATFORMS, type AgentPlatform } from "../protocol/agent-platforms";

const root = resolve(import.meta.dir, "..");
const distDir = resolve(root, "dist");

function fail(message: string): never {
  console.error(`build-agent: ${message}`);
  process.exit(2);
}

function optionValue(argv: string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  if (index < 0) return undefined;
  const value = argv[index + 1];
  if (!value || value.startsWith("--")) fail(`${name} needs a value`);
  return value;
}

/** What to build: [bun target or null for this machine, output path]. */
function readBuilds(argv: string[]): { platform: AgentPlatform | null; outfile: string }[] {
  const outfile = optionValue(argv, "--outfile");
  const target = optionValue(argv, "--target");
  if (target) {
    const platform = AGENT_PLATFORMS.find((p) => p.id === target);
    if (!platform) fail(`unknown --target ${target} (one of: ${AGENT_PLATFORMS.map((p) => p.id).join(", ")})`);
    return [{ platform, outfile: outfile ? resolve(outfile) : join(distDir, platform.fileName) }];
  }
  const host = { platform: null, outfile: outfile ? resolve(outfile) : join(distDir, "dbvault-agent") };
  if (!argv.includes("--all")) return [host];
  return [host, ...AGENT_PLATFORMS.map((platform) => ({ platform, outfile: join(distDir, platform.fileName) }))];
}

async function build(platform: AgentPlatform | null, outfile: string) {
  await mkdir(dirname(outfile), { recursive: true });
  const started = performance.now();
  const run = Bun.spawnSync(
    [
      process.execPath,
      "build",
      "--compile",
      "--minify",
      // Precompiled bytecode: every command starts in ~17 ms of CPU instead of ~45 ms (parsing the
      // bundle), which is most of the gap to age on a 100 MB encrypt (bench/seal-cli.ts). Needs a
      // bundle without top-level await (agent/src/cli.ts).
      "--bytecode",
      ...(platform ? [`--target=${platform.bunTarget}`] : []),
      resolve(root, "agent/src/cli.ts"),
      "--outfile",
      outfile,
    ],
    { cwd: root, stdout: "pipe", stderr: "pipe" },
  );
  if (run.exitCode !== 0) {
    console.error(`build-agent: bun build failed for ${platform?.id ?? "this machine"} (exit ${run.exitCode})`);
    process.stderr.write(run.stderr);
    process.stderr.write(run.stdout);
    process.exit(1);
  }
  const size = (await stat(outfile)).size;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`build-agent: ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB, ${platform?.id ?? `${process.platform}-${process.arch}`}) in ${seconds} s`);
}

for (const { platform, outfile } of readBuilds(process.argv.slice(2))) await build(platform, outfile);
