// What the operator commands of the agent CLI (`dbvault-agent status`, `list`, `backup now`) ask
// the server, on the agent's own credentials: the agent sees its organization's databases that it
// serves, and no others. Times are ISO 8601 strings in UTC.
import { type Static, Type as T } from "@sinclair/typebox";

const Time = T.String({ format: "date-time" });
const NullableTime = T.Union([Time, T.Null()]);

/** A backup as the operator commands show it. */
export const OperatorBackup = T.Object({
  id: T.String(),
  databaseName: T.String(),
  /** manual or auto (scheduled). */
  type: T.String(),
  status: T.String(),
  createdAt: Time,
  completedAt: NullableTime,
  size: T.Union([T.Integer({ minimum: 0 }), T.Null()]),
  /** When an agent last read the stored file back and found every document; null: not yet. */
  verifiedAt: NullableTime,
  /** Why it failed; null otherwise. */
  error: T.Union([T.String(), T.Null()]),
});
export type OperatorBackup = Static<typeof OperatorBackup>;

/** GET /api/agent/status: what `dbvault-agent status` prints. */
export const AgentStatusAnswer = T.Object({
  agent: T.Object({
    id: T.String(),
    name: T.String(),
    /** active: `dbvault-agent run` holds its socket now; inactive or offline: it does not. */
    status: T.String(),
    lastSeen: NullableTime,
    version: T.Union([T.String(), T.Null()]),
  }),
  /** The account (or team) the agent belongs to. */
  organization: T.String(),
  /** The server's clock when it answered (what "next" is measured from). */
  serverTime: Time,
  databases: T.Array(
    T.Object({
      name: T.String(),
      /** False: beyond the plan's database limit, not backed up. */
      isActive: T.Boolean(),
      /** Scheduled backups run this many hours apart. */
      everyHours: T.Integer({ minimum: 1 }),
      lastBackup: T.Union([OperatorBackup, T.Null()]),
      /** The next scheduled backup; null when none is scheduled (inactive database). */
      nextBackupAt: NullableTime,
      /** Point-in-time recovery: off, or on with the shipping lag the agent last reported (null: no fresh report). */
      pointInTime: T.Union([T.Object({ lagSeconds: T.Union([T.Number({ minimum: 0 }), T.Null()]) }), T.Null()]),
    }),
  ),
  /** The work the server holds for this agent and not finished, oldest first. */
  queue: T.Array(
    T.Object({
      kind: T.String(),
      databaseName: T.Union([T.String(), T.Null()]),
      /** queued (not taken yet), leased (in the agent's queue) or running. */
      state: T.String(),
      since: Time,
      /** A running backup's percentage, when it reported one. */
      percent: T.Union([T.Number(), T.Null()]),
    }),
  ),
});
export type AgentStatusAnswer = Static<typeof AgentStatusAnswer>;

/** GET /api/agent/backups: the query (a database of the agent's; at most `limit`, 20 by default). */
export const OperatorBackupsQuery = T.Object({
  db: T.Optional(T.String({ minLength: 1, maxLength: 64, error: "db must be a database name of 1 to 64 characters" })),
  limit: T.Optional(T.String({ pattern: "^[1-9][0-9]{0,2}$", error: "limit must be a whole number from 1 to 500" })),
});
export type OperatorBackupsQuery = Static<typeof OperatorBackupsQuery>;

/** Backups `dbvault-agent list` shows unless told otherwise, and at most. */
export const OPERATOR_LIST_DEFAULT = 20;
export const OPERATOR_LIST_MAX = 500;

/** GET /api/agent/backups: the backups of the agent's databases, newest first. */
export const OperatorBackupsAnswer = T.Object({ backups: T.Array(OperatorBackup) });
export type OperatorBackupsAnswer = Static<typeof OperatorBackupsAnswer>;

/** POST /api/agent/backups: back one of the agent's databases up now, as Trigger Backup does. */
export const BackupNowRequest = T.Object({
  databaseName: T.String({ minLength: 1, maxLength: 64, error: "databaseName must be a database name of 1 to 64 characters" }),
});
export type BackupNowRequest = Static<typeof BackupNowRequest>;

/** The paths of the operator commands (agent credentials). */
export const operatorApi = {
  status: "/api/agent/status",
  backups: "/api/agent/backups",
} as const;
