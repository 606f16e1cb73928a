// The real DaemonRuntime behind `dbvault-agent run`: backups are dump → compress → encrypt
// streams, restores verify/decrypt → restore, credentials live in the 0600 config file. The
// config is re-read before each job, so a database added with `db add` works without a restart.
import { dirname, join } from "node:path";
import type { DrillReport, Progress, RestoreStats } from "../../../protocol/agent-protocol";
import {
  type AgentConfig,
  findDatabase,
  isWriteOnly,
  loadConfig,
  openingKeyIds,
  readOpeningKeys,
  readSealingKey,
  readServerSettings,
  saveConfig,
} from "../config.ts";
import { AGENT_VERSION, BUILD_PLATFORM } from "../build-info.ts";
import { decodeIdentity, InvalidKeyError } from "../archive/index.ts";
import {
  createBackupStream,
  DumpError,
  type DumpResult,
  readUriDatabase,
  restoreFromEncrypted,
  runRestoreDrill,
  verifyEncryptedBackup,
} from "../dump/index.ts";
import { osFamily } from "../platform/locations.ts";
import { type UpdateReport, updateAgent } from "../update/update-agent.ts";
import { createServerClient, type ServerClient } from "../transport/server-client.ts";
import type { DaemonLog } from "./daemon-log.ts";
import type { CopyEntry } from "../copies/copy-destination.ts";
import { pointInTimeReplay } from "../dump/point-in-time-replay.ts";
import type { SliceFile } from "../oplog/chain/index.ts";
import type { OplogTime } from "../../../protocol/oplog-position.ts";
import { drillDatabaseName } from "../../../protocol/verification.ts";
import type { ArchiveSummary } from "../dump/mongodump-archive/index.ts";
import { hasOplogWindow, replayIntoScratch } from "../dump/replay-check.ts";

/** What the daemon needs from the rest of the agent; the run command wires the real ones in. */
export type DaemonRuntime = {
  /** The server client with the current credentials (re-read after a reset or restart). */
  client(): ServerClient;
  hello: { version: string; hostname: string; platform: string };
  /** The database names in the config as last read: the hello tells the server which it holds. */
  databaseNames(): string[];
  /** Key ids of the keyring and identities in the config as last read (master key first): the hello tells the server which backups it can open. */
  keyIds(): string[];
  /** "restore" for a restore agent (setup --role restore), else "backup": the hello says it. */
  role(): "backup" | "restore";
  /** False on a write-only agent: it seals its backups to a key it does not hold, and a restore agent reads them back. */
  canReadOwnBackups(): boolean;
  /** The customer's own buckets each backup is copied to, as last read (`copies add`). */
  copies(): Promise<CopyEntry[]>;
  /** Dumps, compresses and encrypts a configured database: the ciphertext, as produced; `onDumped` hears the counts and the moment dumped before it ends. */
  backup(
    databaseName: string,
    options: { onProgress: (p: Progress) => void; signal: AbortSignal; onDumped?: (result: DumpResult) => void; excludeCollections?: string[] },
  ): AsyncIterable<Uint8Array>;
  /** Verifies, decrypts and restores a backup file into a configured database. */
  restore(
    databaseName: string,
    encrypted: ReadableStream<Uint8Array>,
    options: {
      onProgress: (p: Progress) => void;
      signal: AbortSignal;
      inputBytes?: number;
      /** Another MongoDB database on the same connection ("restore as a copy"). */
      targetDatabase?: string;
      /** Only these collections of the backup. */
      collections?: string[];
      /** A point-in-time restore: these slices are checked whole and replayed up to `until`. */
      pointInTime?: { until: OplogTime; files: SliceFile[] };
      /** An identity (`dbvid1_…`) sent with this restore only (pasted in the web's restore wizard). */
      identity?: string;
    },
  ): Promise<RestoreStats>;
  /**
   * Decrypts and parses a whole backup file as it streams and, when it holds an oplog window and
   * this agent has `databaseName`, reads it again (`reopen`) to replay the window into the drill's
   * scratch database there, with the collections it writes to, and drops it
   * (dump/replay-check.ts). Answers its documents per namespace, the collections replayed when it
   * has a window, or `notReplayed` naming why a window could not be replayed (no such database
   * here, no right to create the scratch database); throws what is wrong with the backup.
   */
  verify(
    encrypted: ReadableStream<Uint8Array>,
    options: { signal: AbortSignal; databaseName?: string; reopen: () => ReadableStream<Uint8Array> },
  ): Promise<{ namespaces: Record<string, number>; replayedCollections?: string[]; notReplayed?: string }>;
  /** Restores a backup into a scratch database on a configured database's connection, checks it and drops it (see dump/drill.ts). */
  drill(
    databaseName: string,
    encrypted: ReadableStream<Uint8Array>,
    options: { scratchDatabase: string; onProgress: (p: Progress) => void; signal: AbortSignal; inputBytes?: number },
  ): Promise<{ stats: RestoreStats; report: DrillReport }>;
  /** What shipping needs for each of these config databases (the server's "pitr" list); names not in the config are left out. */
  shippingTargets(names: string[]): Promise<ShippingTarget[]>;
  /** Stores new agent credentials (a reset) in the config file. */
  saveAgentToken(agentToken: string): Promise<void>;
  /** Re-reads the config file (a restart command). */
  reloadConfig(): Promise<void>;
  /**
   * Checks for a newer agent and installs it over this binary (update/update-agent.ts): answers
   * the version installed, or null when this one is the newest; throws saying why not.
   */
  update(report: UpdateReport): Promise<string | null>;
  log(message: string, fields?: Record<string, unknown>): void;
};

/** One database to ship the oplog of: its connection, the key slices are sealed with, and where shipping keeps its state. */
export type ShippingTarget = { name: string; uri: string; sealing: ReturnType<typeof readSealingKey>; stateDirectory: string };

export interface RuntimeOptions {
  configPath: string;
  /** The config as loaded at start (already checked to hold server settings and a key). */
  config: AgentConfig;
  hello: { hostname: string; platform: string };
  log: DaemonLog;
}

/** A restore that failed, with what was restored before the failure in the protocol's shape. */
class RestoreFailure extends Error {
  constructor(
    message: string,
    readonly stats: RestoreStats | undefined,
  ) {
    super(message);
  }
}

/** Builds the runtime; never throws (failures surface from its methods). */
export function createDaemonRuntime(options: RuntimeOptions): DaemonRuntime {
  const path = options.configPath;
  let config = options.config;

  // The config's keys and identities, and the identity pasted in the web for this restore only
  // (kept in memory for the job, never written anywhere).
  const openingKeys = (current: AgentConfig, identity: string | undefined) =>
    readOpeningKeys(current, path, identity === undefined ? [] : [decodeSentIdentity(identity)]);

  // A config broken by hand mid-run must not stop the agent: keep the last good one and say so.
  const refresh = async () => {
    try {
      const fresh = await loadConfig(path);
      readServerSettings(fresh, path);
      config = fresh;
    } catch (error) {
      options.log("could not re-read the config file; using the last good one", { error: (error as Error).message });
    }
    return config;
  };

  return {
    client: () => createServerClient(readServerSettings(config, path)),
    hello: { version: AGENT_VERSION, ...options.hello },
    databaseNames: () => config.databases.map((entry) => entry.name),
    keyIds: () => {
      try {
        return openingKeyIds(config, path);
      } catch {
        return [];
      }
    },
    role: () => (config.role === "restore" ? "restore" : "backup"),
    canReadOwnBackups: () => !isWriteOnly(config),
    copies: async () => (await refresh()).copies ?? [],
    async *backup(databaseName, { onProgress, signal, onDumped, excludeCollections }) {
      const current = await refresh();
      const database = findDatabase(current, databaseName, path);
      const backup = createBackupStream({
        uri: database.uri,
        ...readSealingKey(current, path),
        compression: current.compression ?? "zstd",
        tools: current.tools,
        ...(database.usersAndRoles === false ? { usersAndRoles: false } : {}),
        ...(excludeCollections?.length ? { excludeCollections } : {}),
        signal,
        onProgress,
        onNotice: (message) => options.log(message, { databaseName }),
      });
      try {
        for await (const chunk of backup.stream) yield chunk as Uint8Array;
        // The stream ending is not enough: the upload is completed only after the dump succeeded.
        onDumped?.(await backup.result);
      } finally {
        backup.stream.destroy();
      }
    },
    async restore(databaseName, encrypted, { onProgress, signal, inputBytes, targetDatabase, collections, pointInTime, identity }) {
      const current = await refresh();
      const database = findDatabase(current, databaseName, path);
      try {
        const { masterKey, identities } = openingKeys(current, identity);
        const result = await restoreFromEncrypted({
          ...(pointInTime ? { pointInTime: pointInTimeReplay({ files: pointInTime.files, keys: { masterKey, identities }, until: pointInTime.until }) } : {}),
          uri: database.uri,
          ...sourceDatabaseOf(database.uri),
          masterKey,
          identities,
          input: encrypted,
          ...(inputBytes ? { inputBytes } : {}),
          ...(targetDatabase ? { database: targetDatabase } : {}),
          ...(collections ? { collections } : {}),
          ...(database.usersAndRoles === false ? { usersAndRoles: false } : {}),
          tools: current.tools,
          signal,
          onProgress,
          onNotice: (message) => options.log(message, { databaseName }),
        });
        return result.collections;
      } catch (error) {
        throw describeRestoreFailure(error);
      }
    },
    async verify(encrypted, { signal, databaseName, reopen }) {
      const current = await refresh();
      const { masterKey, identities } = readOpeningKeys(current, path);
      const countsOf = (summary: ArchiveSummary) => Object.fromEntries(summary.namespaces.map((entry) => [entry.namespace, entry.documentCount]));
      const database = databaseName ? current.databases.find((entry) => entry.name === databaseName) : undefined;
      if (!database) {
        // A restore agent checking a write-only agent's backup: the read-back is its proof.
        const summary = await verifyEncryptedBackup(encrypted, masterKey, signal, identities);
        if (!hasOplogWindow(summary)) return { namespaces: countsOf(summary) };
        return { namespaces: countsOf(summary), notReplayed: `this agent has no database "${databaseName ?? ""}" configured to replay its oplog window into` };
      }
      const { summary, hasWindow, collections, notReplayed } = await replayIntoScratch({
        uri: database.uri,
        ...sourceDatabaseOf(database.uri),
        masterKey,
        identities,
        input: encrypted,
        reopen,
        database: drillDatabaseName(database.name),
        tools: current.tools,
        signal,
        onNotice: (message) => options.log(message, { databaseName: database.name }),
      });
      if (notReplayed) return { namespaces: countsOf(summary), notReplayed };
      return { namespaces: countsOf(summary), ...(hasWindow ? { replayedCollections: collections } : {}) };
    },
    async drill(databaseName, encrypted, { scratchDatabase, onProgress, signal, inputBytes }) {
      const current = await refresh();
      const database = findDatabase(current, databaseName, path);
      const outcome = await runRestoreDrill({
        uri: database.uri,
        ...sourceDatabaseOf(database.uri),
        ...readOpeningKeys(current, path),
        input: encrypted,
        database: scratchDatabase,
        ...(inputBytes ? { inputBytes } : {}),
        tools: current.tools,
        signal,
        onProgress,
        onNotice: (message) => options.log(message, { databaseName }),
      });
      return { stats: outcome.stats, report: outcome.report };
    },
    async shippingTargets(names) {
      const current = await refresh();
      return current.databases
        .filter((entry) => names.includes(entry.name))
        .map((entry) => ({
          name: entry.name,
          uri: entry.uri,
          sealing: readSealingKey(current, path),
          // Beside the config (0700): the spool holds sealed slices, the state where the chain stands.
          stateDirectory: join(dirname(path), "pitr", entry.name),
        }));
    },
    async saveAgentToken(agentToken) {
      const current = await refresh();
      const next = { ...current, server: { ...current.server, ...readServerSettings(current, path), agentToken } };
      await saveConfig(path, next);
      config = next;
    },
    async update(report) {
      const current = await refresh();
      return updateAgent({
        client: createServerClient(readServerSettings(current, path)),
        trustedKey: current.server?.releaseKey,
        pinKey: async (releaseKey) => {
          const fresh = await refresh();
          const next = { ...fresh, server: { ...fresh.server!, releaseKey } };
          await saveConfig(path, next);
          config = next;
          options.log("trusting the server's release signing key from now on (this config was set up before keys were pinned)", { releaseKey });
        },
        current: { version: AGENT_VERSION, platform: BUILD_PLATFORM },
        executable: process.execPath,
        family: osFamily(),
        report,
      });
    },
    async reloadConfig() {
      const fresh = await loadConfig(path);
      readServerSettings(fresh, path);
      config = fresh;
    },
    log: options.log,
  };
}

// The restore history shows this text: it says what the database holds now. Only a swap phase
// stopped part-way ("restore-incomplete") changed anything, and its message names what.
function describeRestoreFailure(error: unknown): Error {
  if (error instanceof DumpError && error.code === "restore-incomplete") {
    return new RestoreFailure(error.message, error.stats?.collections);
  }
  const message = error instanceof Error ? error.message : String(error);
  const hint = error instanceof Error && "hint" in error && typeof error.hint === "string" ? ` (${error.hint})` : "";
  return new RestoreFailure(`${message}${hint}; nothing was changed`, undefined);
}

/** The identity sent with a restore, decoded; the error says what is wrong without quoting it. */
function decodeSentIdentity(text: string): Buffer {
  try {
    return decodeIdentity(text);
  } catch (error) {
    const detail = error instanceof InvalidKeyError ? error.message : "it cannot be decoded";
    throw new Error(
      `the identity sent with this restore is not valid (${detail.replace(/^invalid master key: /, "")}): paste the identity file's dbvid1_ line again`,
    );
  }
}

/** The database a configured connection's backups are of (they dump the URI's database): a restore's source when the backup names none. */
function sourceDatabaseOf(uri: string): { sourceDatabase?: string } {
  const database = readUriDatabase(uri);
  return database === undefined ? {} : { sourceDatabase: database };
}
