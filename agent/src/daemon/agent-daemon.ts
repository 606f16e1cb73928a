import { collectGarbageNow } from "../archive/index.ts";
import { DumpError } from "../dump/errors.ts";
import type { AgentMessage, DrillReport, Progress, RestoreStats, ServerMessage } from "../../../protocol/agent-protocol";
import { type AgentSocket, startAgentSocket } from "../transport/agent-socket";
import type { ServerClient } from "../transport/server-client";
import { createGoSignals } from "../transport/go-signals";
import { uploadBackup } from "../transport/uploader";
import type { UpdateReport } from "../update/update-agent.ts";
import { createOutbox } from "./outbox";
import { createTrustJobs } from "./trust-jobs";
import { throttleProgress } from "./progress-throttle";
import { openResumableDownload } from "./resumable-download";
import { describeQueuedJobs, type QueuedJob } from "./queued-jobs";

/** What the daemon needs from the rest of the agent; the run command wires the real ones in. */
export type DaemonRuntime = {
  /** The server client with the current credentials (re-read after a reset or restart). */
  client(): ServerClient;
  hello: { version: string; hostname: string; platform: string };
  /** The database names in the config as last read: the hello tells the server which it holds. */
  databaseNames(): string[];
  /** Dumps, compresses and encrypts a configured database: the ciphertext, as produced; `onDumped` hears the counts before it ends. */
  backup(
    databaseName: string,
    options: { onProgress: (p: Progress) => void; signal: AbortSignal; onDumped?: (collections: Record<string, number>) => void },
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
    },
  ): Promise<RestoreStats>;
  /** Decrypts and parses a whole backup file; answers its documents per namespace; throws what is wrong with it. */
  verify(encrypted: ReadableStream<Uint8Array>, options: { signal: AbortSignal }): Promise<Record<string, number>>;
  /** Restores a backup into a scratch database on a configured database's connection, checks it and drops it (see dump/drill.ts). */
  drill(
    databaseName: string,
    encrypted: ReadableStream<Uint8Array>,
    options: { scratchDatabase: string; onProgress: (p: Progress) => void; signal: AbortSignal; inputBytes?: number },
  ): Promise<{ stats: RestoreStats; report: DrillReport }>;
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

/** A message for the server: the error's own text, never a stack, trimmed to the protocol's limit. */
const describe = (error: unknown) => ((error as Error)?.message || String(error)).slice(0, 1900);

/** How long stop() lets the running job report its failure (over HTTP) before giving up on it. */
const STOP_GRACE_MS = 5_000;
const STOPPED_REASON = "the agent was stopped during the backup (dbvault-agent run received a stop signal)";

/**
 * The long-lived agent: holds the socket, runs one job at a time as the server asks (a backup and
 * its verification, a restore, a re-verification, a drill, an update), streams uploads and
 * downloads, reports progress, and answers restart/update/reset. An update (Check for Updates) is
 * a job like the others, so it never runs during a backup or restore; once installed,
 * `restartRequested` tells the run command to restart into it.
 */
export function startAgentDaemon(runtime: DaemonRuntime) {
  // Each queued job names the backup or restore it is, so heartbeats can tell the server which
  // ones wait their turn here (it would otherwise fail them as never started).
  const jobs: { run: () => Promise<void>; holds?: QueuedJob }[] = [];
  let running = false;
  let current: Promise<void> | null = null;
  const abort = new AbortController();
  let socket: AgentSocket;
  const goSignals = createGoSignals();

  const outbox = createOutbox(
    (message) => socket.send(message),
    () => socket.isConnected(),
  );
  const trust = createTrustJobs({
    runtime,
    deliver: (message) => outbox.deliver(message),
    send: (message) => socket.send(message),
    signal: abort.signal,
    describe,
  });

  // An installed update restarts the agent once nothing is running or queued.
  let updating = false;
  let installedVersion: string | null = null;
  let resolveRestart: (version: string) => void = () => {};
  const restartRequested = new Promise<string>((resolve) => (resolveRestart = resolve));

  const runNext = async () => {
    if (running) return;
    const job = jobs.shift();
    if (!job) {
      if (installedVersion) resolveRestart(installedVersion);
      return;
    }
    running = true;
    try {
      current = job.run();
      await current;
    } finally {
      running = false;
      current = null;
      void runNext();
    }
  };
  const enqueue = (run: () => Promise<void>, holds?: QueuedJob) => {
    jobs.push({ run, ...(holds ? { holds } : {}) });
    void runNext();
  };
  const heartbeat = (): AgentMessage => {
    const queued = describeQueuedJobs(jobs.flatMap((job) => (job.holds ? [job.holds] : [])));
    return queued ? { type: "heartbeat", queued } : { type: "heartbeat" };
  };

  async function runBackup(backupId: string, databaseName: string) {
    runtime.log("backup started", { backupId, databaseName });
    const report = throttleProgress((progress) => socket.send({ type: "backup.progress", backupId, progress }));
    let uploaded = false;
    let dumped: Record<string, number> | undefined;
    try {
      const encrypted = runtime.backup(databaseName, { onProgress: report, signal: abort.signal, onDumped: (counts) => (dumped = counts) });
      const result = await uploadBackup(runtime.client(), backupId, encrypted, { goSignals, collections: () => dumped, ownsChunks: true });
      runtime.log("backup completed and uploaded", { backupId, databaseName, bytes: result.size });
      uploaded = true;
    } catch (error) {
      const reason = abort.signal.aborted ? STOPPED_REASON : describe(error);
      runtime.log("backup failed", { backupId, databaseName, error: reason });
      outbox.deliver({ type: "backup.failed", backupId, error: reason });
      await runtime
        .client()
        .fail(backupId, reason)
        .catch(() => {});
    }
    // Not done until proven readable: the stored file is read back through the server at once,
    // starting from a clean heap (the backup's last buffers would otherwise add to the
    // verification's: 159-166 MB at that moment on a 2 GB backup, bench/dump-memory.ts).
    collectGarbageNow();
    if (uploaded) await trust.verifyBackup(backupId, dumped);
  }

  async function runRestore(command: Extract<ServerMessage, { type: "restore" }>) {
    const { restoreId, backupId, databaseName, size, targetDatabase, collections } = command;
    runtime.log("restore started", { restoreId, backupId, databaseName, ...(targetDatabase ? { targetDatabase } : {}), ...(collections ? { collections } : {}) });
    outbox.deliver({ type: "restore.started", restoreId });
    const report = throttleProgress((progress) => socket.send({ type: "restore.progress", restoreId, progress }));
    try {
      const download = openResumableDownload(runtime.client(), backupId, { signal: abort.signal });
      const stats = await runtime.restore(databaseName, download, {
        onProgress: report,
        signal: abort.signal,
        inputBytes: size,
        ...(targetDatabase ? { targetDatabase } : {}),
        ...(collections ? { collections } : {}),
      });
      runtime.log("restore completed", { restoreId, databaseName });
      outbox.deliver({ type: "restore.completed", restoreId, stats });
    } catch (error) {
      runtime.log("restore failed", { restoreId, databaseName, error: describe(error) });
      const stats = (error as { stats?: RestoreStats }).stats;
      outbox.deliver({ type: "restore.failed", restoreId, error: describe(error), ...(stats ? { stats } : {}) });
    }
  }

  const reportUpdate: UpdateReport = (status, message, version) => {
    runtime.log(`update: ${message}`, { status, ...(version ? { version } : {}) });
    outbox.deliver({ type: "update.status", status, message: message.slice(0, 2000), ...(version ? { version } : {}) });
  };

  /** An update waits its turn behind the running backup or restore, and restarts the agent only once idle. */
  function requestUpdate() {
    if (installedVersion) {
      reportUpdate("restarting", `dbvault-agent ${installedVersion} is installed and starts once the running job ends`, installedVersion);
      return;
    }
    if (updating) return reportUpdate("checking", "an update check is already under way");
    updating = true;
    if (running || jobs.length > 0) reportUpdate("waiting", "the update waits for the running backup or restore to finish");
    enqueue(async () => {
      try {
        const version = await runtime.update(reportUpdate);
        if (version) {
          installedVersion = version;
          reportUpdate("restarting", `dbvault-agent ${version} is installed; restarting into it`, version);
        }
      } catch (error) {
        reportUpdate("failed", `${describe(error)} (dbvault-agent ${runtime.hello.version} keeps running)`);
      } finally {
        updating = false;
      }
    });
  }

  async function handle(message: ServerMessage) {
    switch (message.type) {
      case "welcome":
        runtime.log("connected to the DBVault server", { agentId: message.agentId });
        outbox.flush();
        return;
      case "backup":
        return enqueue(() => runBackup(message.backupId, message.databaseName), { backupId: message.backupId });
      case "restore":
        return enqueue(() => runRestore(message), { restoreId: message.restoreId });
      case "verify":
        return enqueue(() => trust.verifyBackup(message.backupId, message.expected));
      case "drill":
        return enqueue(() => trust.runDrill(message), { restoreId: message.restoreId });
      case "upload.go":
        goSignals.signal(message.backupId, message.partNumber);
        return;
      case "restart":
        runtime.log("restart requested: reloading the configuration and reconnecting");
        await runtime.reloadConfig();
        outbox.deliver({ type: "command.result", command: "restart", ok: true, message: "configuration reloaded; reconnecting" });
        socket.reconnect();
        return;
      case "update":
        requestUpdate();
        return;
      case "reset":
        runtime.log("connection credentials reset by the server: saving the new agent token");
        await runtime.saveAgentToken(message.agentToken);
        socket.reconnect();
        return;
      case "close":
        runtime.log("the server closed the connection", { reason: message.reason });
        return;
    }
  }

  let resolveRemoved: (reason: string) => void = () => {};
  const removed = new Promise<string>((resolve) => (resolveRemoved = resolve));
  socket = startAgentSocket(
    {
      url: () => runtime.client().socketUrl(),
      headers: () => runtime.client().socketHeaders(),
      hello: () => ({ ...runtime.hello, databases: runtime.databaseNames() }),
      // `setup --force` on this machine gave it new credentials: the next connection uses them.
      beforeConnect: () => runtime.reloadConfig(),
      heartbeat,
    },
    {
      onMessage: (message) => {
        handle(message).catch((error) => runtime.log("command failed", { type: message.type, error: describe(error) }));
      },
      onConnected: () => outbox.flush(),
      onDisconnected: (reason, retryInMs) => runtime.log("disconnected from the server", { reason, retryInMs }),
      onRemoved: (reason) => {
        runtime.log("this agent was removed from DBVault: stopping", { reason });
        resolveRemoved(reason);
      },
    },
  );

  return {
    isConnected: () => socket.isConnected(),
    /** Resolves with the server's reason if it removes this agent; the socket has stopped by then. */
    removed,
    /** Resolves with the version installed by an update, once no job runs: stop(), then restart into it. */
    restartRequested,
    /** Stops taking work, aborts the running job (which reports its failure, briefly awaited) and closes the socket. */
    async stop() {
      jobs.length = 0;
      // The reason becomes the running job's error (dump/errors.ts abortedError): the restore
      // history says the agent was stopped, not that someone cancelled the restore.
      abort.abort(new DumpError("aborted", "the agent was stopped (dbvault-agent run received a stop signal)"));
      if (current) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([current.catch(() => {}), new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS)))]);
        clearTimeout(timer);
      }
      await socket.stop();
    },
  };
}
