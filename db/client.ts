import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
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
const pgliteMemorySettings = [
  "shared_buffers=8MB",
  "work_mem=2MB",
  "maintenance_work_mem=8MB",
  "temp_buffers=1MB",
  "wal_buffers=256kB",
];

/** Opens PGlite in `dataDir` ("memory://" for a throw-away one). Throws if it cannot start. */
export async function openPglite(dataDir: string): Promise<Database> {
  const client = await PGlite.create(dataDir, { postgresqlconf: pgliteMemorySettings });
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

/** Connects to a Postgres server. Throws on a malformed URL; connection errors surface on first query. */
export function openPostgres(url: string, options: { max?: number } = {}): Database {
  const client = postgres(url, { max: options.max ?? 10, onnotice: () => {} });
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
 * Makes sure `dataDir` holds an initialised PGlite cluster. initdb inside PGlite peaks near 1 GB
 * and Bun does not hand that memory back, so a fresh cluster is created by `runInit` (a child
 * process) and the long-lived server only ever opens an existing one.
 */
export async function ensurePgliteCluster(dataDir: string, runInit: (dataDir: string) => Promise<void>) {
  if (existsSync(join(dataDir, "PG_VERSION"))) return;
  mkdirSync(dataDir, { recursive: true });
  await runInit(dataDir);
  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    throw new Error(`could not initialise the embedded database in ${dataDir}`);
  }
}

/** Creates a PGlite cluster in `dataDir` and closes it: the body of the init child process. */
export async function initPgliteCluster(dataDir: string) {
  const client = await PGlite.create(dataDir, { postgresqlconf: pgliteMemorySettings });
  await client.query("select 1");
  await client.close();
}
