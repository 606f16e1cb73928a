// Idle memory of the server on embedded defaults (PGlite, local storage, log mail): starts
// `bun server/src/main.ts` on a fresh data directory, waits until it answers, lets it settle,
// and prints its resident set size; then the same after a restart on the now-existing data.
//   bun bench/server-idle-rss.ts            target: under 300 MB
//   bun bench/server-idle-rss.ts --binary [PATH]   the same for the single-file server
//                                        (default dist/dbvault-server; `npm run build:server`)
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const TARGET_MB = 300;
const root = join(import.meta.dir, "..");

/** The command that starts the server: from source, or the compiled binary with `--binary`. */
function readServerCommand(argv: string[]): string[] {
  const index = argv.indexOf("--binary");
  if (index < 0) return [process.execPath, join(root, "server/src/main.ts")];
  const next = argv[index + 1];
  const binary = next && !next.startsWith("--") ? resolve(next) : join(root, "dist/dbvault-server");
  if (!existsSync(binary)) {
    console.error(`server-idle-rss: ${binary} not found (build it with \`npm run build:server\`)`);
    process.exit(2);
  }
  return [binary];
}

const serverCommand = readServerCommand(process.argv.slice(2));

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(status.match(/VmRSS:\s+(\d+) kB/)![1]) / 1024;
}

async function measure(dataDir: string, port: number, label: string) {
  const started = performance.now();
  const child = Bun.spawn(serverCommand, {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "warn" },
    stdout: "ignore",
    stderr: "inherit",
  });
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/settings/plans`)).ok) break;
    } catch {}
    if (performance.now() - started > 120_000) throw new Error("server did not start");
    await Bun.sleep(100);
  }
  const readyMs = performance.now() - started;
  await Bun.sleep(5000);
  const idle = rssMb(child.pid);
  // A little real traffic, then idle again.
  for (let i = 0; i < 50; i++) await fetch(`http://127.0.0.1:${port}/api/settings/plans`);
  await Bun.sleep(3000);
  const afterTraffic = rssMb(child.pid);
  child.kill();
  await child.exited;
  console.log(
    `${label.padEnd(28)} ready in ${(readyMs / 1000).toFixed(1)} s, idle RSS ${idle.toFixed(0)} MB, after 50 requests ${afterTraffic.toFixed(0)} MB  ${
      Math.max(idle, afterTraffic) < TARGET_MB ? "PASS" : "FAIL"
    } (target < ${TARGET_MB} MB)`,
  );
}

const dataDir = mkdtempSync(join(tmpdir(), "dbvault-bench-rss-"));
console.log(`server: ${serverCommand.join(" ")}`);
try {
  await measure(dataDir, 39_871, "first start (fresh data dir)");
  await measure(dataDir, 39_872, "restart (existing data)");
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
