// GET /api/backups for a user with 10,000 backups: latency percentiles over a few hundred
// sequential requests, first with the server otherwise idle, then while a second process
// (bench/support/load-client.ts) keeps it busy with other signed-in requests.
//
// Set-up: the server (own process, embedded PGlite) starts once to create its database and the
// user (through the API); it is stopped, the backups are inserted directly into its PGlite data
// directory (PGlite is single-process), and it is started again.
//
//   bun bench/backup-list.ts [--backups 10000] [--requests 300] [--load 4] [--target-ms 50]
import { join } from "node:path";
import { openPglite } from "@db/client";
import { backups } from "@db/schema";
import { createUser, makeDataDir, percentile, removeDataDir, root, type ServerProcess, startServer, verdict } from "./support/server-process";

const PORT = 39_883;

function readOptions(argv: string[]) {
  const options = { backups: 10_000, requests: 300, load: 4, targetMs: 50 };
  for (let i = 0; i < argv.length; i += 2) {
    const [name, value] = [argv[i], Number(argv[i + 1])];
    if (name === "--backups" && value >= 1) options.backups = value;
    else if (name === "--requests" && value >= 10) options.requests = value;
    else if (name === "--load" && value >= 1) options.load = value;
    else if (name === "--target-ms" && value > 0) options.targetMs = value;
    else {
      console.error("usage: bun bench/backup-list.ts [--backups 10000] [--requests 300] [--load 4] [--target-ms 50]");
      process.exit(2);
    }
  }
  return options;
}

/** Hourly backups going back `count` hours: mostly completed, a few failed, over three databases. */
async function seedBackups(dataDir: string, userId: string, count: number) {
  const database = await openPglite(join(dataDir, "pglite"));
  try {
    const now = Date.now();
    for (let start = 0; start < count; start += 1000) {
      const rows = Array.from({ length: Math.min(1000, count - start) }, (_, k) => {
        const i = start + k;
        const createdAt = new Date(now - i * 3_600_000);
        const failed = i % 25 === 7;
        return {
          organizationId: userId,
          databaseName: `shop-${i % 3}`,
          type: i % 10 === 0 ? ("manual" as const) : ("auto" as const),
          status: failed ? ("failed" as const) : ("completed" as const),
          size: failed ? 0 : 50_000_000 + (i % 997) * 1000,
          sha256: failed ? null : i.toString(16).padStart(8, "0").repeat(8),
          storageKey: failed ? null : `users/${userId}/backups/seed-${i}`,
          error: failed ? "The agent lost its connection to MongoDB." : null,
          progress: failed ? null : { current: 12, total: 12, percentage: 100, collection: "orders" },
          createdAt,
          startedAt: createdAt,
          completedAt: new Date(createdAt.getTime() + 90_000),
          lastActivityAt: createdAt,
        };
      });
      await database.db.insert(backups).values(rows);
    }
    const [first] = await database.db.select({ id: backups.id }).from(backups).limit(1);
    return first!.id;
  } finally {
    await database.close();
  }
}

async function measureList(server: ServerProcess, token: string, requests: number) {
  const times: number[] = [];
  let items = 0;
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    const res = await fetch(`${server.url}/api/backups`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as unknown[];
    times.push(performance.now() - started);
    if (!res.ok) throw new Error(`GET /api/backups answered ${res.status}`);
    items = body.length;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99), max: times[times.length - 1]!, items };
}

const line = (label: string, r: Awaited<ReturnType<typeof measureList>>, requests: number) =>
  `${label.padEnd(34)} p50 ${r.p50.toFixed(1)} ms  p95 ${r.p95.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  max ${r.max.toFixed(1)} ms  (${requests} requests, ${r.items} backups a page)`;

const options = readOptions(process.argv.slice(2));
const dataDir = makeDataDir("backup-list");
let server: ServerProcess | null = null;
let load: ReturnType<typeof Bun.spawn> | null = null;
try {
  server = await startServer(dataDir, PORT);
  const user = await createUser(server);
  await server.stop();
  const seeded = performance.now();
  const someBackupId = await seedBackups(dataDir, user.id, options.backups);
  console.log(`seeded ${options.backups} backups for one user directly in PGlite in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
  server = await startServer(dataDir, PORT);

  await measureList(server, user.token, 30); // warm-up: JIT, PGlite caches
  const idle = await measureList(server, user.token, options.requests);
  console.log(line("GET /api/backups, server idle", idle, options.requests));

  load = Bun.spawn([process.execPath, join(root, "bench/support/load-client.ts"), server.url, user.token, someBackupId, String(options.load), "300"], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const loadOutput = (load.stdout as ReadableStream<Uint8Array>).getReader();
  await loadOutput.read(); // "started"
  await Bun.sleep(1000);
  const cpu = server.cpuSeconds();
  const loadedAt = performance.now();
  const loaded = await measureList(server, user.token, options.requests);
  const serverCpu = ((server.cpuSeconds() - cpu) / ((performance.now() - loadedAt) / 1000)) * 100;
  load.kill("SIGTERM");
  let summary = "";
  for (;;) {
    const { value, done } = await loadOutput.read();
    if (done) break;
    summary += new TextDecoder().decode(value);
  }
  console.log(line(`GET /api/backups, ${options.load} loops of load`, loaded, options.requests));
  console.log(`  ${summary.trim()}; server CPU ${serverCpu.toFixed(0)} % of one core while measured`);
  console.log("");
  console.log(verdict(loaded.p99 < options.targetMs, `p99 under load < ${options.targetMs} ms: ${loaded.p99.toFixed(1)} ms`));
} finally {
  load?.kill();
  await load?.exited;
  await server?.stop();
  removeDataDir(dataDir);
}
process.exit(0);
