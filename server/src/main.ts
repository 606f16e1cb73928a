import { initPgliteCluster } from "@db/client";
import { createApp } from "./app";
import { createContext, openDatabase } from "./bootstrap";
import { ConfigError, loadConfig } from "./config";
import { describeDatabaseStartError } from "./lib/database-start-error";
import { EmbeddedDatabaseInUseError } from "./lib/embedded-database-lock";
import { createLogger } from "./lib/logger";
import { startBackgroundJobs } from "./modules/scheduler";
import { ReplicatedStorage, S3Storage, StorageError } from "./storage";

const INIT_EMBEDDED_DB_FLAG = "--init-embedded-db";
/** How long SIGTERM waits for requests in flight before cutting them (Docker kills after 10 s). */
const SHUTDOWN_GRACE_MS = 5_000;

// Child mode: create the embedded database cluster and exit (see ensurePgliteCluster for why).
const initIndex = process.argv.indexOf(INIT_EMBEDDED_DB_FLAG);
if (initIndex !== -1) {
  await initPgliteCluster(process.argv[initIndex + 1]!);
  process.exit(0);
}

async function initEmbeddedInChild(dataDir: string) {
  const child = Bun.spawn([process.execPath, process.argv[1]!, INIT_EMBEDDED_DB_FLAG, dataDir], {
    stdout: "inherit",
    stderr: "inherit",
  });
  if ((await child.exited) !== 0) throw new Error(`embedded database initialisation failed (exit ${child.exitCode})`);
}

try {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const database = await openDatabase(config, initEmbeddedInChild, log);
  const ctx = await createContext(config, database, { log });
  // STORAGE_OBJECT_LOCK promises backups nobody can delete early: a bucket that cannot keep that
  // promise (no versioning, no Object Lock) stops the start, before any backup is written unlocked.
  // With a replica, the lock applies to both buckets.
  const sides = ctx.storage instanceof ReplicatedStorage ? [ctx.storage.primary, ctx.storage.replica] : [ctx.storage];
  for (const side of sides) if (side instanceof S3Storage) await side.checkObjectLock();
  const app = createApp(ctx);
  app.listen({
    port: config.port,
    hostname: config.host,
    // Backup parts are streamed in pieces well under this; JSON routes have their own 1 MB limit.
    maxRequestBodySize: 64 * 1024 * 1024,
  });
  const server = app.server!;
  const stopJobs = startBackgroundJobs(ctx);
  ctx.log.info("DBVault is running", {
    url: config.publicUrl,
    listening: `http://${config.host}:${server.port}`,
    database: database.kind,
  });
  console.log(`\n  DBVault is running at ${config.publicUrl}\n`);
  if (!config.publicUrlSet) {
    // Install commands follow the address each browser used; mail is sent outside any request.
    ctx.log.warn("PUBLIC_URL is not set: e-mailed links (password resets, alerts) point to it; set it to the address users reach", {
      publicUrl: config.publicUrl,
    });
  }
  // Told at once rather than at the first upload (a 503): wrong S3 credentials, a missing bucket,
  // an unwritable folder. Not fatal: storage that is only down now may well come back.
  void ctx.storage
    .check()
    .catch((error: Error) => ctx.log.warn("backup storage cannot be used now: uploads and downloads will be refused until it can", { reason: error.message }));
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    ctx.log.info(
      `stopping on ${signal}: no new connections; waiting up to ${SHUTDOWN_GRACE_MS / 1000} s for requests in flight (uploads, downloads) to finish, then closing agent and browser sockets, which reconnect by themselves`,
      { requests: server.pendingRequests, sockets: server.pendingWebSockets },
    );
    stopJobs();
    // Stop taking connections and let requests in flight finish, but not for ever: a graceful stop
    // also waits for every WebSocket, and agents and browsers keep theirs open for good, so with
    // one agent connected SIGTERM never ended the process (systemd then kills it after 90 s).
    // What is still open after the grace is cut: agents and browsers reconnect, and an upload cut
    // mid-part is not recorded as stored (the agent sends the part again).
    const graceful = app.stop(false).then(() => true);
    const finished = await Promise.race([graceful, Bun.sleep(SHUTDOWN_GRACE_MS).then(() => false)]);
    // Bun's own stop, not Elysia's: once the graceful stop has ended, app.stop prints "Elysia isn't
    // running" and a stack on a clean stop.
    if (!finished) await server.stop(true);
    await ctx.pendingWork.settled(); // agents' disconnections, recorded as their sockets closed
    await ctx.bus.stop();
    await database.close();
    ctx.log.info("stopped");
    process.exit(0);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`dbvault-server: ${error.message}`);
    process.exit(2);
  }
  if (error instanceof EmbeddedDatabaseInUseError || error instanceof StorageError) {
    console.error(`dbvault-server: ${error.message}`);
    process.exit(1);
  }
  const databaseReason = describeDatabaseStartError(error);
  if (databaseReason) {
    console.error(`dbvault-server: cannot use the PostgreSQL server in DATABASE_URL: ${databaseReason}.`);
    console.error("hint: check DATABASE_URL, and that PostgreSQL is running and reachable from this machine.");
    process.exit(1);
  }
  throw error;
}
