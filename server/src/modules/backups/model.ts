import { t } from "elysia";
import { anomalyKinds, backupConsistencies, backupTypes, operationStatuses, restoreKinds } from "@db/schema";
import { SEALED_IDENTITY_MAX_LENGTH, SEALED_IDENTITY_PATTERN } from "@protocol/agent-protocol";
import { fileAnswer, isoDate, messageAnswer, nullable, oneOf } from "../../lib/schema";
import { copyAnswer } from "../copies/model";

const databaseName = t.String({ minLength: 1, maxLength: 64, error: "databaseName is required" });

export const backupsModel = {
  idParams: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
  trigger: t.Object({ databaseName }),
  keep: t.Object({ kept: t.Boolean({ error: "kept must be true or false" }) }, { error: "kept must be true or false" }),
  // Length and characters are checked by keep.ts normalizeLabel, which trims first and says which rule failed.
  label: t.Object(
    { label: t.Union([t.String({ maxLength: 10_000 }), t.Null()], { error: "label must be text (at most 100 characters) or null" }) },
    { error: "label must be text (at most 100 characters) or null" },
  ),
  listQuery: t.Object({
    limit: t.Optional(t.Numeric({ multipleOf: 1, minimum: 1, maximum: 500, error: "limit must be a whole number from 1 to 500" })),
    page: t.Optional(t.Numeric({ multipleOf: 1, minimum: 1, maximum: 1_000_000, error: "page must be a whole number from 1" })),
    databaseName: t.Optional(
      t.String({ minLength: 1, maxLength: 64, error: "databaseName must be 1 to 64 characters", description: "Only this database's backups (exact name)" }),
    ),
    search: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 64,
        error: "search must be 1 to 64 characters",
        description: "Only databases whose name contains this text (any case)",
      }),
    ),
    status: t.Optional(oneOf(operationStatuses, "status must be one of pending, in-progress, completed, failed")),
    from: t.Optional(t.String({ maxLength: 40, error: "from must be an ISO 8601 date or date-time", description: "Created at or after (ISO 8601)" })),
    to: t.Optional(
      t.String({
        maxLength: 40,
        error: "to must be an ISO 8601 date or date-time",
        description: "Created at or before (ISO 8601; a bare date includes that whole day, UTC)",
      }),
    ),
    verified: t.Optional(oneOf(["true", "false"] as const, "verified must be true or false")),
    pitrBase: t.Optional(oneOf(["true", "false"] as const, "pitrBase must be true or false")),
  }),
  restore: t.Object({
    databaseName,
    targetDatabase: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 63,
        // MongoDB refuses these characters in database names.
        pattern: '^[^/\\\\. "$*<>:|?\\u0000]+$',
        error: 'targetDatabase must be a MongoDB database name: 1 to 63 characters, none of / \\ . " $ * < > : | ?',
      }),
    ),
    collections: t.Optional(
      t.Array(
        t.String({ minLength: 1, maxLength: 255, pattern: "^[^$\\u0000]+$", error: "collections must be a list of 1 to 1000 different collection names" }),
        {
          minItems: 1,
          maxItems: 1000,
          uniqueItems: true,
          error: "collections must be a list of 1 to 1000 different collection names",
        },
      ),
    ),
    sealedIdentity: t.Optional(
      t.String({
        maxLength: SEALED_IDENTITY_MAX_LENGTH,
        pattern: SEALED_IDENTITY_PATTERN,
        // Never echoes the value.
        error: "sealedIdentity must be an identity sealed in the restore wizard to the restoring agent's identityRecipient (an armored age file)",
        description: "A write-only agent's identity, sealed by the web to the restoring agent's identityRecipient: the server forwards it and cannot open it",
      }),
    ),
    connection: t.Optional(
      t.Object(
        {
          agentId: t.String({ minLength: 1, maxLength: 64, error: "connection.agentId must be an agent's id" }),
          name: t.String({ minLength: 1, maxLength: 64, error: "connection.name must be the name of one of that agent's connections (1 to 64 characters)" }),
        },
        {
          description:
            "Restore into targetDatabase on this agent's connection (its name as added with dbvault-agent db add): any server the agent reaches. The typed confirmation is always asked.",
        },
      ),
    ),
    /** Refused: the server takes an identity sealed to the agent only (service.ts says so with a 400). */
    identity: t.Optional(t.Unknown({ description: "Refused: send sealedIdentity" })),
  }),
};

const progressAnswer = nullable(
  t.Object({ current: t.Number(), total: t.Number(), percentage: t.Number(), collection: t.String() }, { description: "While running: where it is" }),
);

export const backupAnswer = t.Object({
  _id: t.String(),
  id: t.String(),
  databaseName: t.String(),
  timestamp: isoDate(),
  createdAt: isoDate(),
  completedAt: nullable(isoDate()),
  size: t.Number({ description: "Bytes of the encrypted file" }),
  status: oneOf(operationStatuses, "status"),
  type: oneOf(backupTypes, "type"),
  progress: progressAnswer,
  error: nullable(t.String()),
  sha256: nullable(t.String({ description: "SHA-256 (hex) of the encrypted file" })),
  keyId: nullable(t.String({ description: "Key id (public fingerprint) of the master key that opens the file; never the key" })),
  collections: nullable(t.Record(t.String(), t.Number(), { description: "Documents per collection as dumped" })),
  excludedCollections: t.Array(t.String(), {
    description: "Collections the database's exclusions left out: not in this backup, so no restore of it brings them back",
  }),
  /** "point-in-time": the database as at consistentAt (a replica set's dump with its oplog window); "standalone": not point-in-time consistent; null: not reported. */
  consistency: nullable(oneOf(backupConsistencies, "consistency")),
  consistentAt: nullable(
    t.Object(
      { time: isoDate(), ts: t.Object({ t: t.Number(), i: t.Number() }, { description: "The oplog timestamp" }) },
      { description: "T1: the moment the backup holds the database as" },
    ),
  ),
  verifiedAt: nullable(isoDate()),
  verification: nullable(
    t.Object(
      {
        status: oneOf(["ok", "failed"] as const, "status"),
        namespaces: t.Record(t.String(), t.Number(), { description: "Documents per namespace found in the stored file" }),
        error: t.Optional(t.String()),
        notReplayed: t.Optional(
          t.String({ description: "Why the backup's oplog window was not replayed into a scratch database: verified by its read-back only" }),
        ),
      },
      { description: "The agent read the stored file back, decrypted and parsed all of it and counted its documents" },
    ),
  ),
  verificationWaitingFor: nullable(
    t.String({ description: "Why a verification asked for has not started: no restore agent that can read this write-only backup is online" }),
  ),
  anomaly: nullable(
    t.Object(
      { kind: oneOf(anomalyKinds, "kind"), detail: t.String() },
      { description: "Much smaller than the backups before it (size or documents under half their median, or a collection gone)" },
    ),
  ),
  anomalyResolvedAt: nullable(isoDate()),
  kept: t.Boolean({ description: "Kept forever: retention never deletes it (it still counts in the storage quota)" }),
  keptAt: nullable(isoDate()),
  keptBy: nullable(t.String({ description: "Name of the member who kept it" })),
  label: nullable(t.String({ description: "The user's note on the backup, up to 100 characters" })),
  copies: t.Array(copyAnswer, { description: "Where the agent copied the encrypted file besides DBVault (dbvault-agent copies add)" }),
});

export const restoreAnswer = t.Object({
  _id: t.String(),
  id: t.String(),
  backupId: nullable(t.String()),
  databaseName: t.String(),
  targetDatabase: t.String(),
  collections: nullable(t.Array(t.String(), { description: "Only these collections; null: all" })),
  status: oneOf(operationStatuses, "status"),
  createdAt: isoDate(),
  completedAt: nullable(isoDate()),
  error: nullable(t.String()),
  progress: progressAnswer,
  stats: nullable(t.Record(t.String(), t.Object({ restored: t.Number(), failed: t.Number() }), { description: "Per namespace" })),
  kind: oneOf(restoreKinds, "kind"),
  drill: nullable(
    t.Object(
      {
        durationMs: t.Number(),
        documents: t.Object({ expected: t.Number(), restored: t.Number() }),
        indexes: t.Object({ expected: t.Number(), found: t.Number() }),
        scratchDropped: t.Boolean(),
      },
      { description: "A drill's checks in its scratch database" },
    ),
  ),
  pointInTime: nullable(
    t.Object({ at: isoDate(), ts: t.String({ description: "oplog position, seconds,increment" }) }, { description: "A point-in-time restore's moment" }),
  ),
  waitingFor: nullable(
    t.String({ description: "Why a pending restore or drill has not gone to an agent: no restore agent that can read this write-only backup is online" }),
  ),
});

export const backupAnswers = {
  backup: backupAnswer,
  list: t.Array(backupAnswer),
  summary: t.Object({
    totalCount: t.Integer(),
    completedCount: t.Integer(),
    failedCount: t.Integer(),
    successRate: t.Number({ description: "Percent of the finished (completed or failed) backups that completed, one decimal" }),
    lastBackupAt: nullable(isoDate()),
  }),
  restores: t.Array(restoreAnswer),
  restoreRequested: t.Object({ message: t.String(), restore: restoreAnswer }),
  restoreConnections: t.Object({
    agents: t.Array(
      t.Object({
        id: t.String(),
        name: t.String(),
        role: t.String(),
        connections: t.Array(t.String(), { description: "The names of its connections (dbvault-agent db add); never a connection string" }),
      }),
      { description: "Online agents that can open the backup, with at least one connection" },
    ),
  }),
  message: messageAnswer,
};

/** The encrypted file: bytes, not JSON. */
export const encryptedFileAnswer = {
  200: fileAnswer("The encrypted backup file (.enc.dbvault); X-Content-SHA256 carries its SHA-256"),
  206: fileAnswer("The requested byte range of it"),
};
