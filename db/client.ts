import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PGlite, type QueryOptions, type Transaction, types } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A transaction handle; services that may run inside one take `DbOrTx`. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type DbOrTx = Db | Tx;

/** A connected metadata database: the Drizzle handle plus the few raw features we need. */
export type Database = {
  db: Db;
  kind: "pglite" | "postgres";
  /** Subscribes to a Postgres NOTIFY channel; returns the unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
};

// PGlite's defaults (128 MB shared buffers and friends) are sized for a database server; the
// metadata of a self-hosted DBVault is small, and these keep the embedded server's RSS low.
const pgliteSettings = [
  "shared_buffers=8MB",
  "work_mem=2MB",
  "maintenance_work_mem=8MB",
  "temp_buffers=1MB",
  "wal_buffers=256kB",
  // Planner: PGlite runs no autovacuum, so tables are never analyzed and the planner guesses a
  // user's rows as ~0.5 % of the table. With the default random_page_cost (4, for spinning disks)
  // that guess made it bitmap-scan and sort all 10,000 of a user's backups for a 100-row page
  // (5-18 ms) instead of reading the newest 100 backwards from backups_user_created_id_idx
  // (~1 ms). The metadata is small and cached in memory, where 1.1 is the usual setting.
  "random_page_cost=1.1",
];

// The types Drizzle asks PGlite to hand over as text (it parses them itself): timestamp,
// timestamptz, interval, date, and numeric[], timestamp[], timestamptz[], interval[], date[].
const drizzleTextTypes = new Set<number>([types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182]);

/**
 * Drizzle passes those text parsers with every query, and PGlite then copies its whole parser
 * table (~320 entries with the array types) into a new object per query: ~0.2 ms of CPU a query,
 * the top item of the server's profile. Installing the same parsers on the client once and
 * dropping Drizzle's copy from each query's options gives the same values without the copy.
 */
function installDrizzleParsers(client: PGlite) {
  for (const oid of drizzleTextTypes) client.parsers[oid] = (value: string) => value;
  const withoutDrizzleParsers = (options?: QueryOptions) =>
    options?.parsers && Object.keys(options.parsers).every((oid) => drizzleTextTypes.has(Number(oid))) ? { ...options, parsers: undefined } : options;
  const query = client.query.bind(client);
  client.query = (text, params, options) => query(text, params, withoutDrizzleParsers(options));
  const transaction = client.transaction.bind(client);
  client.transaction = (callback) =>
    transaction((tx: Transaction) => {
      const txQuery = tx.query.bind(tx);
      tx.query = (text, params, options) => txQuery(text, params, withoutDrizzleParsers(options));
      return callback(tx);
    });
}

/** Opens PGlite in `dataDir` ("memory://" for a throw-away one). Throws if it cannot start. */
export async function openPglite(dataDir: string): Promise<Database> {
  const client = await PGlite.create(dataDir, { postgresqlconf: pgliteSettings });
  installDrizzleParsers(client);
  return {
    db: drizzlePglite(client, { schema }) as unknown as Db,
    kind: "pglite",
    listen: async (channel, onPayload) => {
      const unlisten = await client.listen(channel, onPayload);
      return () => unlisten();
    },
    notify: async (channel, payload) => {
      await client.query("select pg_notify($1, $2)", [channel, payload]);
    },
    close: () => client.close(),
  };
}

/**
 * Seconds to wait before reconnecting after `retries` failed attempts in a row. The driver's
 * default grows to 20 s, and its LISTEN connection (the cluster bus: agent commands, browser
 * events) reconnects only at that pace: after an outage of a few seconds it stayed deaf for up to
 * 20 s more once the database was back, and every message published meanwhile was lost (a backup
 * triggered then answered 201 and never reached its agent). Capped at half a second: one attempt
 * a connection every 0.5 s is nothing to a database server.
 */
const reconnectDelaySeconds = (retries: number) => Math.min(0.02 * 2 ** retries, 0.5);

/** Connects to a Postgres server. Throws on a malformed URL; connection errors surface on first query. */
export function openPostgres(url: string, options: { max?: number } = {}): Database {
  const client = postgres(url, { max: options.max ?? 10, onnotice: () => {}, backoff: reconnectDelaySeconds });
  return {
    db: drizzlePostgres(client, { schema }) as unknown as Db,
    kind: "postgres",
    listen: async (channel, onPayload) => {
      const subscription = await client.listen(channel, onPayload);
      return () => subscription.unlisten();
    },
    notify: async (channel, payload) => {
      await client.notify(channel, payload);
    },
    close: () => client.end({ timeout: 5 }),
  };
}

/**
 * Makes sure `dataDir` holds an initialised PGlite cluster; says how it got one. From `template`
 * (a `dumpDataDir` tarball of a fresh cluster, shipped inside the single-file server) that takes
 * about a second. Without one, initdb runs: several seconds, and it peaks near 1 GB, which Bun
 * does not hand back, so it runs in `runInit` (a child process) and the long-lived server only
 * ever opens an existing cluster. A template that fails to load falls back to initdb.
 */
export async function ensurePgliteCluster(
  dataDir: string,
  runInit: (dataDir: string) => Promise<void>,
  template?: Blob | null,
): Promise<"existing" | "template" | "initdb"> {
  if (existsSync(join(dataDir, "PG_VERSION"))) return "existing";
  mkdirSync(dataDir, { recursive: true });
  let how: "template" | "initdb" = "initdb";
  if (template) {
    try {
      const client = await PGlite.create(dataDir, { loadDataDir: template, postgresqlconf: pgliteSettings });
      await client.query("select 1");
      await client.close();
      how = "template";
    } catch {
      for (const entry of readdirSync(dataDir)) rmSync(join(dataDir, entry), { recursive: true, force: true });
    }
  }
  if (how === "initdb") await runInit(dataDir);
  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    throw new Error(`could not initialise the embedded database in ${dataDir}`);
  }
  return how;
}

/** A fresh cluster as a gzipped tarball, for `ensurePgliteCluster`'s template (built by scripts/build-server.ts). */
export async function dumpFreshPgliteCluster(): Promise<Blob> {
  const client = await PGlite.create({ postgresqlconf: pgliteSettings });
  await client.query("select 1");
  const dump = await client.dumpDataDir("gzip");
  await client.close();
  return dump;
}

/** Creates a PGlite cluster in `dataDir` and closes it: the body of the init child process. */
export async function initPgliteCluster(dataDir: string) {
  const client = await PGlite.create(dataDir, { postgresqlconf: pgliteSettings });
  await client.query("select 1");
  await client.close();
}
