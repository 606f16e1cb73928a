import type { AgentMessage, ServerMessage } from "../../../protocol/agent-protocol";
import { DumpError } from "../dump/errors.ts";
import { type AgentSocket, startAgentSocket } from "../transport/agent-socket";
import { createGoSignals } from "../transport/go-signals";
import type { IdentityTransport } from "./identity-transport.ts";
import { describeError, type JobContext } from "./job-context.ts";
import { createJobQueue } from "./job-queue.ts";
import { runBackupJob } from "./jobs/backup-job.ts";
import { createCopyCheckSchedule } from "./jobs/copy-check-job.ts";
import { createPitrShipping } from "./jobs/pitr-shipping-job.ts";
import { runRestoreJob } from "./jobs/restore-job.ts";
import { createTrustJobs } from "./jobs/trust-jobs.ts";
import { createUpdateJob } from "./jobs/update-job.ts";
import { createJobFetcher } from "./job-fetcher.ts";
import { createOutbox } from "./outbox";
import type { DaemonRuntime } from "./runtime.ts";

/** How long stop() lets the running job report its failure (over HTTP) before giving up on it. */
const STOP_GRACE_MS = 5_000;

/**
 * The long-lived agent: holds the socket and turns the server's messages into jobs (jobs/: a
 * backup and its verification, a restore, a re-verification, a drill, an update), run one at a
 * time by the job queue (with the daily check of the copies in the customer's buckets); answers restart and reset itself. Once an update is installed,
 * `restartRequested` tells the run command to restart into it when nothing runs.
 */
export function startAgentDaemon(runtime: DaemonRuntime, identityTransport: IdentityTransport) {
  const abort = new AbortController();
  let socket: AgentSocket;
  const goSignals = createGoSignals();
  const outbox = createOutbox(
    (message) => socket.send(message),
    () => socket.isConnected(),
  );
  const job: JobContext = {
    runtime,
    deliver: (message) => outbox.deliver(message),
    send: (message) => socket.send(message),
    signal: abort.signal,
  };
  const trust = createTrustJobs(job);

  let resolveRestart: (version: string) => void = () => {};
  const restartRequested = new Promise<string>((resolve) => (resolveRestart = resolve));
  const queue = createJobQueue({
    onIdle: () => {
      const version = update.installedVersion();
      if (version) resolveRestart(version);
    },
  });
  const update = createUpdateJob(job, queue);
  const shipping = createPitrShipping(job);
  const copyCheck = createCopyCheckSchedule(job, queue);

  const heartbeat = (): AgentMessage => {
    const queued = queue.describeQueued();
    const pitrLag = shipping.lagReport();
    return { type: "heartbeat", ...(queued ? { queued } : {}), ...(pitrLag.length > 0 ? { pitrLag } : {}) };
  };

  /**
   * Tells the server a job of its ledger is taken, new or already held: it sends it again only
   * while its lease runs. Over HTTP when fetched there, else on the socket it came on. Lost, the
   * job comes again on the next fetch and is acknowledged then.
   */
  const acknowledge = (jobId: string | undefined, fetched: boolean) => {
    if (!jobId) return;
    if (!fetched) return void socket.send({ type: "job.taken", jobId });
    runtime
      .client()
      .acknowledgeJob(jobId)
      .catch((error) => runtime.log("could not acknowledge a job; it comes again", { jobId, error: describeError(error) }));
  };

  const jobs = createJobFetcher(runtime, (command) => handle(command, true));

  async function handle(message: ServerMessage, fetched = false) {
    switch (message.type) {
      case "welcome":
        runtime.log("connected to the DBVault server", { agentId: message.agentId });
        outbox.flush();
        copyCheck.connected();
        return;
      case "backup": {
        const run = () => runBackupJob({ ...job, goSignals, trust }, message.backupId, message.databaseName, message.fileName, message.excludeCollections);
        // The server sends a backup again when this agent reconnects before starting it: one
        // whose first command did arrive is a repeat, and the queue ignores it.
        if (!queue.enqueue(run, { backupId: message.backupId })) runtime.log("ignored a backup this agent already took", { backupId: message.backupId });
        acknowledge(message.jobId, fetched);
        return;
      }
      case "restore":
        if (!queue.enqueue(() => runRestoreJob(job, message, identityTransport), { restoreId: message.restoreId })) {
          runtime.log("ignored a restore this agent already took", { restoreId: message.restoreId });
        }
        return acknowledge(message.jobId, fetched);
      case "verify":
        // By its job id: the same backup may rightly be verified again, under a new job.
        if (
          !queue.enqueue(
            () => trust.verifyBackup(message.backupId, message.databaseName, message.expected, message.sha256),
            message.jobId ? { jobId: message.jobId } : undefined,
          )
        ) {
          runtime.log("ignored a verification this agent already took", { backupId: message.backupId });
        }
        return acknowledge(message.jobId, fetched);
      case "drill":
        if (!queue.enqueue(() => trust.runDrill(message), { restoreId: message.restoreId })) {
          runtime.log("ignored a drill this agent already took", { restoreId: message.restoreId });
        }
        return acknowledge(message.jobId, fetched);
      case "work":
        return jobs.fetch();
      case "pitr":
        return shipping.ship(message.databases);
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
        if (!update.request(message.jobId)) runtime.log("ignored an update check this agent already took");
        return acknowledge(message.jobId, fetched);
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
      hello: () => ({
        ...runtime.hello,
        databases: runtime.databaseNames(),
        keyIds: runtime.keyIds(),
        role: runtime.role(),
        identityRecipient: identityTransport.recipient,
        jobs: queue.describeTaken(),
        fetchesJobs: true,
      }),
      // `setup --force` on this machine gave it new credentials: the next connection uses them.
      beforeConnect: () => runtime.reloadConfig(),
      heartbeat,
    },
    {
      onMessage: (message) => {
        handle(message).catch((error) => runtime.log("command failed", { type: message.type, error: describeError(error) }));
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
      jobs.stop();
      queue.clear();
      copyCheck.stop();
      // The reason becomes the running job's error (dump/errors.ts abortedError): the restore
      // history says the agent was stopped, not that someone cancelled the restore.
      abort.abort(new DumpError("aborted", "the agent was stopped (dbvault-agent run received a stop signal)"));
      const current = queue.running();
      if (current) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([current.catch(() => {}), new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS)))]);
        clearTimeout(timer);
      }
      // Shipping ends at the abort; what it had not sealed is read again at the next start.
      let shippingTimer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([shipping.stopped(), new Promise((resolve) => (shippingTimer = setTimeout(resolve, STOP_GRACE_MS)))]);
      clearTimeout(shippingTimer);
      await socket.stop();
    },
  };
}
