// The second process of bench/backup-list.ts: keeps the server busy with other signed-in
// requests (dashboard summary, restores, system status, plans, one backup) from `concurrency`
// parallel loops until it is killed or `seconds` pass, then prints how many it sent.
//   bun bench/support/load-client.ts <server url> <token> <backup id> [concurrency=4] [seconds=120]
const [url, token, backupId, concurrencyText = "4", secondsText = "120"] = process.argv.slice(2);
if (!url || !token || !backupId) {
  console.error("usage: bun bench/support/load-client.ts <server url> <token> <backup id> [concurrency] [seconds]");
  process.exit(2);
}
const paths = ["/api/backups/summary", "/api/backups/restores/all", "/api/settings/system-status", "/api/settings/plans", `/api/backups/${backupId}`];
const deadline = performance.now() + Number(secondsText) * 1000;
let sent = 0;
let failed = 0;
let stopping = false;
process.on("SIGTERM", () => (stopping = true));

async function loop(offset: number) {
  for (let i = offset; !stopping && performance.now() < deadline; i++) {
    const res = await fetch(`${url}${paths[i % paths.length]}`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    sent++;
    if (!res.ok) failed++;
  }
}

const started = performance.now();
console.log("started");
await Promise.all(Array.from({ length: Number(concurrencyText) }, (_, i) => loop(i)));
console.log(`load: ${sent} requests (${failed} failed) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

export {};
