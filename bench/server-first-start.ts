// How soon the single-file server answers on its very first start (an empty directory: the
// embedded database is created then) and on a later start, as a self-hoster sees it.
//   bun bench/server-first-start.ts [--runs N] [--binary PATH]     target: first answer < 5 s
// Time is from spawning the process to the first successful HTTP answer, polled every 20 ms.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const TARGET_SECONDS = 5;
const root = join(import.meta.dir, "..");

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(name);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1]! : fallback;
}

const binary = resolve(option("--binary", join(root, "dist/dbvault-server")));
const runs = Number(option("--runs", "3"));
if (!existsSync(binary)) {
  console.error(`server-first-start: ${binary} not found (build it with \`npm run build:server\`)`);
  process.exit(2);
}

async function freePort(): Promise<number> {
  const server = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = server.port!;
  await server.stop();
  return port;
}

/** Seconds from spawn to the first answer; the server is stopped afterwards. */
async function timeStart(cwd: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = Bun.spawn([binary], {
    cwd,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn" },
    stdout: "ignore",
    stderr: "inherit",
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/api/agents/server-status`)).ok) return (performance.now() - started) / 1000;
      } catch {}
      if (performance.now() - started > 120_000) throw new Error("no answer within 120 s");
      await Bun.sleep(20); // polling interval: the measurement's resolution
    }
  } finally {
    child.kill("SIGTERM");
    await child.exited;
  }
}

const firsts: number[] = [];
const seconds: number[] = [];
for (let run = 1; run <= runs; run++) {
  const dir = mkdtempSync(join(tmpdir(), "dbvault-first-start-"));
  try {
    firsts.push(await timeStart(dir));
    seconds.push(await timeStart(dir));
    console.log(`run ${run}: first start ${firsts.at(-1)!.toFixed(2)} s, later start ${seconds.at(-1)!.toFixed(2)} s`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const worst = Math.max(...firsts);
console.log(`first start: worst ${worst.toFixed(2)} s of ${runs}; later starts: worst ${Math.max(...seconds).toFixed(2)} s`);
console.log(`${worst < TARGET_SECONDS ? "PASS" : "FAIL"}: first answer within ${TARGET_SECONDS} s of a first start on an empty directory`);
process.exit(worst < TARGET_SECONDS ? 0 : 1);
