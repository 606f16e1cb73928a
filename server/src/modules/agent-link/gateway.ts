import { randomUUID } from "node:crypto";
import { Value } from "@sinclair/typebox/value";
import { and, eq } from "drizzle-orm";
import { type AgentRow, backups } from "@db/schema";
import { AgentMessage, type AgentRole, type ServerMessage } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { unstorableValueProblem } from "../../lib/storable-text";
import { openAgentCommand } from "../../lib/agent-commands";
import { failBackup, recordBackupProgress } from "../backups/service";
import { recordVerification } from "../verification/service";
import { recordBackupCopy } from "../copies/service";
import { failRestore, recordRestoreCompleted, recordRestoreProgress, recordRestoreStarted } from "../restores/service";
import { recordQueuedJobs } from "../agents/queued-jobs";
import { declareDatabasesOnHello } from "../databases/declared";
import { markAgentConnected, markAgentDisconnected, recordHeartbeat } from "../agents/service";
import { recordPitrLag } from "../databases/lag";
import { listShippedDatabases } from "../databases/shipped-databases";
import { sendWaitingWork } from "./waiting-work";
import { failLostJobs } from "./lost-jobs";
import { confirmUpdateOnHello, recordUpdateStatus, recordUpdateUnsupported } from "../agents/updates";
import { acknowledgeJob, extendLeases, takeJobsToSend } from "../agent-jobs/service";

type AgentSocket = { id: string; send(data: string): unknown; close(code?: number, reason?: string): unknown };
type Connection = {
  socket: AgentSocket;
  agentId: string;
  organizationId: string;
  connectionId: string;
  /** When the socket was opened: a job last heard of before then was not heard on it (lost-jobs.ts). */
  openedAt: Date;
  /** The message being handled: an agent's messages are handled one after another, in order. */
  handling: Promise<void>;
  /** The ledger's jobs being sent: one reading at a time, so that two signals do not send a job twice. */
  delivering: Promise<void>;
  /** The jobs sent on this socket: a socket loses nothing it delivered, so each goes once a socket. */
  sentJobs: Set<string>;
  /** What its hello said it is: a restore agent runs no backups. */
  role?: AgentRole;
};

/**
 * The agent sockets held by this server instance. Commands for agents arrive on the cluster bus
 * (from any instance) and go out on the socket if this instance holds it.
 */
export function createAgentGateway(ctx: AppContext) {
  const byAgent = new Map<string, Connection>();
  const bySocket = new Map<string, Connection>();

  const send = (connection: Connection, message: ServerMessage) => connection.socket.send(JSON.stringify(message));

  /**
   * Sends the agent the jobs of the ledger not started (agent-jobs/service.ts), and
   * keeps their subjects pending as its heartbeat's queue does: sent again, the agent has the
   * whole time to take it that it had the first time. A restore agent runs no backups.
   */
  const deliverJobs = (connection: Connection) => {
    connection.delivering = connection.delivering.then(async () => {
      if (byAgent.get(connection.agentId) !== connection) return;
      try {
        const jobs = await takeJobsToSend(ctx, connection.agentId, {
          except: connection.sentJobs,
          ...(connection.role === "restore" ? { kinds: ["restore", "drill", "verify"] as const } : {}),
        });
        for (const { command } of jobs) {
          send(connection, command);
          connection.sentJobs.add(command.jobId);
        }
        const ids = (kinds: string[]) => jobs.filter((job) => kinds.includes(job.kind)).map((job) => job.subjectId);
        if (jobs.length > 0) await recordQueuedJobs(ctx, connection.agentId, { backupIds: ids(["backup"]), restoreIds: ids(["restore", "drill"]) });
      } catch (error) {
        ctx.log.error("could not send an agent its jobs", { agentId: connection.agentId, error });
      }
    });
    return connection.delivering;
  };

  ctx.bus.subscribe((message) => {
    if (message.kind === "agent.send") {
      const connection = byAgent.get(message.agentId);
      if (!connection) return;
      try {
        send(connection, openAgentCommand(ctx.commandBox, message.message, message.sealed));
      } catch {
        // Sealed by an instance with another API_KEY_SECRET: nothing readable to send.
        ctx.log.warn("dropped an agent command whose secrets could not be opened", { agentId: message.agentId });
      }
    } else if (message.kind === "agent.work") {
      const connection = byAgent.get(message.agentId);
      if (connection) void deliverJobs(connection);
    } else if (message.kind === "agent.disconnect") {
      for (const connection of byAgent.values()) {
        if (connection.organizationId !== message.organizationId) continue;
        if (message.agentId && connection.agentId !== message.agentId) continue;
        send(connection, { type: "close", reason: message.reason });
        connection.socket.close(message.closeCode ?? 4001, message.reason.slice(0, 120));
      }
    }
  });

  async function handleMessage(connection: Connection, raw: unknown) {
    // Checked as HTTP bodies are (lib/http.ts): the schema, then text the database can store. A
    // message failing either is ignored with a warning naming the field, never tried on the database.
    if (!Value.Check(AgentMessage, raw)) {
      const first = Value.Errors(AgentMessage, raw).First();
      ctx.log.warn("ignored a malformed agent message", { agentId: connection.agentId, field: first?.path || "the message", problem: first?.message });
      return;
    }
    const unstorable = unstorableValueProblem(raw);
    if (unstorable) {
      ctx.log.warn("ignored an agent message with text the database cannot store", { agentId: connection.agentId, type: raw.type, problem: unstorable });
      return;
    }
    const { agentId } = connection;
    switch (raw.type) {
      case "hello":
        connection.role = raw.role ?? "backup";
        await markAgentConnected(ctx, agentId, connection.connectionId, {
          version: raw.version,
          hostname: raw.hostname,
          platform: raw.platform,
          ...(raw.keyIds ? { keyIds: raw.keyIds } : {}),
          ...(raw.role ? { role: raw.role } : {}),
          // Each run of the agent has its own; an older agent's hello clears the last one.
          identityRecipient: raw.identityRecipient ?? null,
        });
        // After it is recorded online, so that it may take over databases whose runner is offline.
        // A restore agent runs none: its databases are only where it restores.
        if (raw.databases) await declareDatabasesOnHello(ctx, connection.organizationId, agentId, raw.role === "restore" ? [] : raw.databases);
        await confirmUpdateOnHello(ctx, agentId, raw.version);
        // What it ran before a restart is lost (lost-jobs.ts); an older agent does not say.
        if (raw.jobs) await failLostJobs(ctx, agentId, raw.jobs, connection.openedAt);
        // What waited for an agent that can read it (waiting-work.ts) goes now.
        await sendWaitingWork(ctx, agentId);
        // "Send me my jobs not started": one lost in a socket swap, or taken by an agent process
        // that since restarted, arrives now; one the agent still holds it acknowledges again, never runs twice.
        await deliverJobs(connection);
        return;
      case "heartbeat":
        // The queued jobs first: a heartbeat seen recorded (the agent's lastSeen) has kept them
        // pending too, so a sweep that follows it never fails one the heartbeat named.
        if (raw.queued) {
          await recordQueuedJobs(ctx, agentId, raw.queued);
          await extendLeases(ctx, agentId, [...raw.queued.backupIds, ...raw.queued.restoreIds]);
        }
        await recordHeartbeat(ctx, agentId, connection.connectionId);
        if (raw.pitrLag) await recordPitrLag(ctx, agentId, raw.pitrLag);
        return;
      case "job.taken":
        return acknowledgeJob(ctx, agentId, raw.jobId);
      case "backup.progress":
        return recordBackupProgress(ctx, agentId, raw.backupId, raw.progress);
      case "backup.failed":
        if (await ownsBackup(agentId, raw.backupId)) await failBackup(ctx, raw.backupId, raw.error);
        return;
      case "restore.started":
        return recordRestoreStarted(ctx, agentId, raw.restoreId);
      case "restore.progress":
        return recordRestoreProgress(ctx, agentId, raw.restoreId, raw.progress);
      case "restore.completed":
        return recordRestoreCompleted(ctx, agentId, raw.restoreId, raw.stats, raw.drill);
      case "restore.failed":
        return failRestore(ctx, raw.restoreId, raw.error, { agentId, stats: raw.stats, drill: raw.drill });
      case "backup.verified":
        return recordVerification(ctx, { id: agentId, organizationId: connection.organizationId }, raw.backupId, raw.verification);
      case "backup.copied":
        return recordBackupCopy(ctx, agentId, raw);
      case "update.status":
        return recordUpdateStatus(ctx, agentId, raw.status, raw.message, raw.version);
      case "command.result":
        ctx.log.info("agent command result", { agentId, command: raw.command, ok: raw.ok, message: raw.message });
        if (raw.command === "update") await recordUpdateUnsupported(ctx, agentId, raw.message);
        return;
    }
  }

  async function ownsBackup(agentId: string, backupId: string) {
    const rows = await ctx.db
      .select({ id: backups.id })
      .from(backups)
      .where(and(eq(backups.id, backupId), eq(backups.agentId, agentId)));
    return rows.length > 0;
  }

  return {
    /** A newly authenticated agent socket. An older socket of the same agent is closed. */
    async open(socket: AgentSocket, agent: AgentRow) {
      const previous = byAgent.get(agent.id);
      if (previous) previous.socket.close(4002, "replaced by a newer connection");
      const connection: Connection = {
        socket,
        agentId: agent.id,
        organizationId: agent.organizationId,
        connectionId: randomUUID(),
        openedAt: ctx.now(),
        handling: Promise.resolve(),
        delivering: Promise.resolve(),
        sentJobs: new Set(),
      };
      byAgent.set(agent.id, connection);
      bySocket.set(socket.id, connection);
      await markAgentConnected(ctx, agent.id, connection.connectionId, {});
      send(connection, { type: "welcome", agentId: agent.id, serverTime: ctx.now().toISOString() });
      send(connection, { type: "pitr", databases: await listShippedDatabases(ctx, agent.id) });
    },
    async message(socket: AgentSocket, raw: unknown) {
      const connection = bySocket.get(socket.id);
      if (!connection) return;
      // In order: "restore.started" handled after "restore.completed" would find the restore
      // finished and drop its step (each message's queries may run on another pool connection).
      connection.handling = connection.handling.then(() =>
        handleMessage(connection, raw).catch((error) => ctx.log.error("agent message failed", { agentId: connection.agentId, error })),
      );
      await connection.handling;
    },
    async close(socket: AgentSocket) {
      const connection = bySocket.get(socket.id);
      bySocket.delete(socket.id);
      if (!connection) return;
      if (byAgent.get(connection.agentId) === connection) byAgent.delete(connection.agentId);
      // After the messages already received; a failure (e.g. the server shutting down) is logged,
      // since nobody awaits a socket's close handler.
      await connection.handling;
      await markAgentDisconnected(ctx, connection.agentId, connection.connectionId).catch((error) =>
        ctx.log.error("could not record an agent disconnection", { agentId: connection.agentId, error }),
      );
    },
    /**
     * Sends at once when the agent's socket is on this instance, else through the cluster bus (as
     * service.ts sendToAgent always does): for messages on a hot path, such as upload.go.
     */
    async deliver(agentId: string, message: ServerMessage) {
      const connection = byAgent.get(agentId);
      if (connection) send(connection, message);
      else await ctx.bus.publish({ kind: "agent.send", agentId, message });
    },
    connectedCount: () => byAgent.size,
  };
}

export type AgentGateway = ReturnType<typeof createAgentGateway>;
