// The agent protocol, shared by the server and the agent (which never imports Elysia): TypeBox
// schemas for every message and request body, and the constants both sides must agree on.
//
// HTTP calls from the agent carry `Authorization: Bearer <user API key>`; once registered, also
// `X-Agent-Id` and `X-Agent-Token`. The socket at /api/agents/ws takes the same headers.
import { type Static, Type as T } from "@sinclair/typebox";
import { OplogTime } from "./oplog-position";

export const AGENT_PROTOCOL_VERSION = 1;
/** Backup files are uploaded in parts of this size (the last one shorter); a part is retried whole. */
export const UPLOAD_PART_SIZE = 8 * 1024 * 1024;
/**
 * Parts an agent sends at once: while one part's body streams, the server does the next one's
 * bookkeeping (its database work) instead of idling between parts. The server still hashes and
 * the agent still acknowledges parts in order.
 */
export const UPLOAD_PARTS_IN_FLIGHT = 2;
/** How long an agent holds a part's body back waiting for `upload.go` before sending it anyway. */
export const UPLOAD_GO_WAIT_MS = 15_000;
export const HEARTBEAT_INTERVAL_MS = 15_000;
/** Reconnect delays after a dropped socket: 1 s doubling up to 5 s. */
export const RECONNECT_MIN_MS = 1_000;
export const RECONNECT_MAX_MS = 5_000;
/**
 * The server closes an agent's socket with this code when the agent was removed from the account
 * (or connects after its removal): the agent must stop instead of reconnecting forever.
 */
export const AGENT_REMOVED_CLOSE_CODE = 4410;
/** What a removed agent is told (its socket closes with AGENT_REMOVED_CLOSE_CODE, its calls answer 410). */
export const AGENT_REMOVED_MESSAGE = "This agent was removed from DBVault: run dbvault-agent setup --force to connect this machine again.";

export const AgentHeaders = {
  agentId: "x-agent-id",
  agentToken: "x-agent-token",
  /**
   * On a part upload: "1" when the agent holds the body back until an `upload.go` message for that
   * part reaches its socket (or UPLOAD_GO_WAIT_MS pass). The server says go when it is ready to read
   * the body, so bodies waiting for the server's turn wait on the agent's side, not in server memory.
   */
  awaitGo: "x-dbvault-await-go",
} as const;

const Name = T.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9][A-Za-z0-9._ -]*$" });
const ShortText = (max: number) => T.String({ minLength: 1, maxLength: max });

/** Documents per namespace ("db.collection"): names and numbers only. */
const NamespaceCounts = T.Record(T.String({ minLength: 3, maxLength: 400 }), T.Integer({ minimum: 0 }), { maxProperties: 10_000 });

export const Progress = T.Object({
  current: T.Integer({ minimum: 0 }),
  total: T.Integer({ minimum: 0 }),
  percentage: T.Number({ minimum: 0, maximum: 100 }),
  collection: T.String({ maxLength: 300 }),
});
export type Progress = Static<typeof Progress>;

/**
 * Whether point-in-time recovery can be turned on for a database, as `setup` and `db add` found
 * it: "ready" (the user reads the oplog and applies entries), "standalone" (no oplog), or
 * "missing-roles" with the built-in roles to grant. The web refuses turning PITR on unless ready.
 */
export const PitrAccess = T.Object({
  status: T.Union([T.Literal("ready"), T.Literal("standalone"), T.Literal("missing-roles")]),
  missingRoles: T.Array(T.Object({ role: ShortText(64), db: ShortText(64) }), { maxItems: 8 }),
});
export type PitrAccess = Static<typeof PitrAccess>;

/**
 * What an agent is for (issue 27 §4): "backup" runs its databases' backups; "restore" holds the
 * identity of write-only agents and runs the verifications, drills and restores of the backups
 * sealed to it, never a backup. Absent: "backup" (older agents).
 */
export const AGENT_ROLES = ["backup", "restore"] as const;
export type AgentRole = (typeof AGENT_ROLES)[number];
const Role = T.Union(AGENT_ROLES.map((role) => T.Literal(role)));

/** An identity in its text form (`dbvid1_` and 48 base64url characters): only ever sent to an agent. */
export const IDENTITY_TEXT_PATTERN = "^dbvid1_[A-Za-z0-9_-]{48}$";
/** An age X25519 recipient (Bech32, `age1` and 58 characters): the public part of an agent's transport key. */
export const IDENTITY_RECIPIENT_PATTERN = "^age1[02-9ac-hj-np-z]{58}$";
/**
 * A pasted identity sealed to an agent's recipient: an ASCII-armored age file (one X25519 stanza
 * and a 55-byte payload come to about 400 characters).
 */
export const SEALED_IDENTITY_PATTERN = "^-----BEGIN AGE ENCRYPTED FILE-----\\r?\\n[A-Za-z0-9+/=\\r\\n]+-----END AGE ENCRYPTED FILE-----\\r?\\n?$";
export const SEALED_IDENTITY_MAX_LENGTH = 2000;

export const RegisterRequest = T.Object({
  name: ShortText(100),
  hostname: ShortText(255),
  platform: ShortText(64),
  version: ShortText(32),
  databases: T.Array(Name, { maxItems: 1000 }),
  /**
   * The agent this machine already is (from its config, on `setup --force`): the server gives it
   * new credentials (the old ones stop working) instead of registering a second agent.
   */
  agentId: T.Optional(T.String({ minLength: 1, maxLength: 64 })),
  /**
   * With `agentId` when the agent's own credentials are not sent or no longer valid: the one-time
   * code the server answered the first try with, once a user approved it (`setup --force --setup-code`).
   */
  setupCode: T.Optional(T.String({ minLength: 1, maxLength: 32 })),
  /** What the point-in-time check found for the databases it could ask (absent: older agents, or none answered). */
  pitrAccess: T.Optional(T.Array(T.Object({ database: Name, access: PitrAccess }), { maxItems: 1000 })),
  role: T.Optional(Role),
});
export type RegisterRequest = Static<typeof RegisterRequest>;

export const DatabaseEntry = T.Object({ name: T.String(), isActive: T.Boolean() });
export const RegisterResponse = T.Object({
  agentId: T.String(),
  agentToken: T.String(),
  /** The agent's name in the web app (hostname plus a short id unless --name chose one); older servers omit it. */
  name: T.Optional(T.String()),
  databases: T.Array(DatabaseEntry),
});
export type RegisterResponse = Static<typeof RegisterResponse>;

export const AddDatabaseRequest = T.Object({ name: Name, pitrAccess: T.Optional(PitrAccess) });

export const UploadStatus = T.Object({
  parts: T.Array(T.Object({ partNumber: T.Integer(), size: T.Integer() })),
  uploadedBytes: T.Integer(),
});
export type UploadStatus = Static<typeof UploadStatus>;

/**
 * The one moment a backup holds its database as: on a replica set the dump's last oplog entry (T1),
 * whose timestamp's seconds are `time`; a standalone server keeps no oplog, so its backup is no
 * single point in time.
 */
export const BackupConsistency = T.Union([
  T.Object({ kind: T.Literal("point-in-time"), at: T.Object({ time: T.String({ minLength: 20, maxLength: 30 }), ts: OplogTime }) }),
  T.Object({ kind: T.Literal("standalone") }),
]);
export type BackupConsistency = Static<typeof BackupConsistency>;

export const CompleteUploadRequest = T.Object({
  partCount: T.Integer({ minimum: 1 }),
  size: T.Integer({ minimum: 1 }),
  sha256: T.String({ pattern: "^[0-9a-f]{64}$" }),
  /** Documents per namespace ("db.collection") as dumped, for restore choices and progress totals. */
  collections: T.Optional(NamespaceCounts),
  /** Key id (public fingerprint) of the master key the file's header names; never the key. */
  keyId: T.Optional(T.String({ pattern: "^[0-9a-f]{32}$" })),
  /** Absent from older agents and when the dump could not tell (mongodump of one database). */
  consistency: T.Optional(BackupConsistency),
});
export type CompleteUploadRequest = Static<typeof CompleteUploadRequest>;

export const FailRequest = T.Object({ error: ShortText(2000) });

export const RestoreStats = T.Record(T.String(), T.Object({ restored: T.Integer(), failed: T.Integer() }));
export type RestoreStats = Static<typeof RestoreStats>;

/**
 * What the agent found reading a stored backup back through the server: "ok" when the whole file
 * decrypted and parsed and every namespace held the documents it should; else "failed" and why.
 */
export const Verification = T.Object({
  status: T.Union([T.Literal("ok"), T.Literal("failed")]),
  namespaces: NamespaceCounts,
  error: T.Optional(ShortText(2000)),
  /** Why the backup's oplog window was not replayed into scratch (verified by its read-back only). */
  notReplayed: T.Optional(ShortText(2000)),
});
export type Verification = Static<typeof Verification>;

/** What a restore drill checked in its scratch database before dropping it. */
export const DrillReport = T.Object({
  durationMs: T.Integer({ minimum: 0 }),
  documents: T.Object({ expected: T.Integer({ minimum: 0 }), restored: T.Integer({ minimum: 0 }) }),
  indexes: T.Object({ expected: T.Integer({ minimum: 0 }), found: T.Integer({ minimum: 0 }) }),
  scratchDropped: T.Boolean(),
});
export type DrillReport = Static<typeof DrillReport>;
/**
 * How far an update ("Check for Updates") got, as the agent reports it: `waiting` for a running
 * backup or restore, `checking` the signed release manifest, `up-to-date`, `installing` (download
 * and checks), `restarting` into the new version (the server records `updated` once the agent
 * says hello as that version), or `failed` with the reason (the old version keeps running).
 */
export const UPDATE_STATUSES = ["waiting", "checking", "up-to-date", "installing", "restarting", "failed"] as const;
export const UpdateStatus = T.Union(UPDATE_STATUSES.map((status) => T.Literal(status)));
export type UpdateStatus = (typeof UPDATE_STATUSES)[number];

/** The backups and restores (drills included) an agent holds in its queue, by id. */
export const QueuedJobs = T.Object({
  backupIds: T.Array(T.String({ maxLength: 64 }), { maxItems: 100 }),
  restoreIds: T.Array(T.String({ maxLength: 64 }), { maxItems: 100 }),
  /**
   * The ledger's jobs with no backup or restore of their own (a verification, an update) the
   * agent holds, waiting or running: their leases run on. Absent: older agents, or none.
   */
  jobIds: T.Optional(T.Array(T.String({ maxLength: 64 }), { maxItems: 100 })),
});
export type QueuedJobs = Static<typeof QueuedJobs>;

/**
 * A backup file written to (or given up on for) one of the customer's own buckets after its upload
 * to DBVault (`dbvault-agent copies add`): the destination's label holds no credential.
 */
export const BackupCopied = T.Object({
  type: T.Literal("backup.copied"),
  backupId: T.String({ maxLength: 64 }),
  destination: ShortText(500),
  key: ShortText(1024),
  status: T.Union([T.Literal("stored"), T.Literal("failed")]),
  size: T.Optional(T.Integer({ minimum: 0 })),
  sha256: T.Optional(T.String({ pattern: "^[0-9a-f]{64}$" })),
  /** The ETag the bucket answered for the stored copy: the daily check's HEAD compares it. Absent: older agents. */
  etag: T.Optional(ShortText(200)),
  /** The S3 Object Lock retention it was written with (`copies add --object-lock`). Absent: not locked. */
  lockedUntil: T.Optional(T.String({ format: "date-time", maxLength: 40 })),
  error: T.Optional(ShortText(2000)),
});
export type BackupCopied = Static<typeof BackupCopied>;

/** Messages the agent sends on its socket. */
export const AgentMessage = T.Union([
  T.Object({
    type: T.Literal("hello"),
    version: ShortText(32),
    hostname: ShortText(255),
    platform: ShortText(64),
    /** The database names in the agent's config: the server lets it run those no online agent runs. Absent: older agents. */
    databases: T.Optional(T.Array(Name, { maxItems: 1000 })),
    /** Key ids (public fingerprints) of the agent's keyring, master key first; never a key. Absent: older agents. */
    keyIds: T.Optional(T.Array(T.String({ pattern: "^[0-9a-f]{32}$" }), { maxItems: 100 })),
    /** AGENT_ROLES; absent: older agents ("backup"). */
    role: T.Optional(Role),
    /**
     * The age X25519 recipient of a key pair the running agent keeps in memory only: the web seals
     * an identity pasted for a restore to it, so the server only ever holds ciphertext. Absent:
     * older agents (they cannot take a pasted identity).
     */
    identityRecipient: T.Optional(T.String({ pattern: IDENTITY_RECIPIENT_PATTERN })),
    /**
     * The backups and restores this run of the agent took (queued, running or finished), newest
     * last: one the server has in progress on this agent that is not named was lost with an
     * earlier run (killed, crashed, the machine restarted) and fails at once. Absent: older agents.
     */
    jobs: T.Optional(QueuedJobs),
    /**
     * The agent fetches its jobs over HTTP (GET agentApi.jobs) and acknowledges them there: the
     * socket then only says `work`. Absent: older agents, sent the commands on the socket.
     */
    fetchesJobs: T.Optional(T.Boolean()),
  }),
  T.Object({
    type: T.Literal("heartbeat"),
    /**
     * Jobs the agent received and holds in its queue, not started yet (it runs one at a time):
     * the server keeps them pending instead of failing them as never started. Absent: none.
     */
    queued: T.Optional(QueuedJobs),
    /**
     * Shipping lag of each database whose oplog the agent ships (issue 25 §2, issue 47 §4): seconds
     * since the newest moment through which the agent confirmed (by its own heartbeat to the
     * database) that every entry is stored by the server. `unreachableSeconds`: the database has
     * not answered the agent for that long (absent: it answers). Absent: none shipped.
     */
    pitrLag: T.Optional(
      T.Array(
        T.Object({
          database: Name,
          seconds: T.Integer({ minimum: 0, maximum: 10 * 365 * 86_400 }),
          unreachableSeconds: T.Optional(T.Integer({ minimum: 0, maximum: 10 * 365 * 86_400 })),
        }),
        { maxItems: 1000 },
      ),
    ),
  }),
  /**
   * The agent took a job of the server's ledger (a command carrying `jobId`): queued, or already
   * held, run or running. The server stops sending it on each hello.
   */
  T.Object({ type: T.Literal("job.taken"), jobId: T.String({ maxLength: 64 }) }),
  T.Object({ type: T.Literal("backup.progress"), backupId: T.String(), progress: Progress }),
  T.Object({ type: T.Literal("backup.failed"), backupId: T.String(), error: ShortText(2000) }),
  T.Object({ type: T.Literal("restore.started"), restoreId: T.String() }),
  T.Object({ type: T.Literal("restore.progress"), restoreId: T.String(), progress: Progress }),
  T.Object({ type: T.Literal("restore.completed"), restoreId: T.String(), stats: RestoreStats, drill: T.Optional(DrillReport) }),
  T.Object({
    type: T.Literal("restore.failed"),
    restoreId: T.String(),
    error: ShortText(2000),
    stats: T.Optional(RestoreStats),
    drill: T.Optional(DrillReport),
  }),
  T.Object({ type: T.Literal("backup.verified"), backupId: T.String(), verification: Verification }),
  BackupCopied,
  T.Object({
    type: T.Literal("update.status"),
    status: UpdateStatus,
    message: T.String({ maxLength: 2000 }),
    /** The version being installed (installing, restarting) or found (up-to-date). */
    version: T.Optional(T.String({ maxLength: 32 })),
  }),
  T.Object({
    type: T.Literal("command.result"),
    command: T.Union([T.Literal("restart"), T.Literal("update"), T.Literal("reset")]),
    ok: T.Boolean(),
    message: T.String({ maxLength: 2000 }),
  }),
]);
export type AgentMessage = Static<typeof AgentMessage>;

/**
 * What a point-in-time restore adds to the restore command (issue 25 §3): the moment, and how
 * large the plan is, never the plan itself. The command crosses the cluster bus (Postgres NOTIFY,
 * under 8,000 bytes), and a plan is ~180 bytes a slice: a moment a day after its base is thousands
 * of slices. The server chose the newest base backup consistent at or before `until` and the
 * slices from it to `until`, in chain order, and recorded them on the restore; the agent fetches
 * that plan with its own credentials (agentApi.pointInTimePlan, PointInTimePlanPage, page by
 * page), downloads each slice (agentApi.sliceDownload), checks the chain whole before changing
 * anything (every slice opens with its key, names this database and chain, sequences follow,
 * each starts where the previous ended, the last reaches `until`), restores the base into
 * staging, replays the entries up to `until` there, then swaps as every restore does.
 */
export type PointInTimeCommand = {
  /** Replay entries up to and including this oplog position. */
  until: OplogTime;
  /**
   * The plan recorded on the restore: how many slices it lists, and whether it names collections
   * (the restore command then carries none: a list of 1,000 names does not fit the bus either).
   */
  plan: { slices: number; collections: boolean };
};

/** One slice of a point-in-time restore's plan, in chain order. */
export const PointInTimePlanSlice = T.Object({
  id: T.String(),
  chain: T.String(),
  sequence: T.Integer({ minimum: 0 }),
  size: T.Integer({ minimum: 0 }),
  sha256: T.String(),
});
export type PointInTimePlanSlice = Static<typeof PointInTimePlanSlice>;

/** Slices a plan page holds at most (and by default). */
export const POINT_IN_TIME_PLAN_PAGE = 500;

/** The query of GET agentApi.pointInTimePlan: the slices after sequence `after` (none: from the first), at most `limit`. */
export const PointInTimePlanQuery = T.Object({
  after: T.Optional(T.String({ pattern: "^(0|[1-9][0-9]{0,8})$", error: "after must be a slice sequence number" })),
  limit: T.Optional(T.String({ pattern: "^[1-9][0-9]{0,3}$", error: `limit must be a whole number from 1 to ${POINT_IN_TIME_PLAN_PAGE}` })),
});
export type PointInTimePlanQuery = Static<typeof PointInTimePlanQuery>;

/** GET agentApi.pointInTimePlan: one page of the plan the server recorded when the restore was asked for. */
export const PointInTimePlanPage = T.Object({
  restoreId: T.String(),
  backupId: T.String(),
  until: OplogTime,
  /** Only these collections (as they exist at `until`); null: every one. */
  collections: T.Union([T.Array(T.String()), T.Null()]),
  /** Slices in the whole plan. */
  total: T.Integer({ minimum: 0 }),
  slices: T.Array(PointInTimePlanSlice),
  /** The `after` of the next page; null on the last. */
  next: T.Union([T.Integer({ minimum: 0 }), T.Null()]),
});
export type PointInTimePlanPage = Static<typeof PointInTimePlanPage>;

/** Messages the server sends to an agent. */
export type ServerMessage =
  | { type: "welcome"; agentId: string; serverTime: string }
  | {
      type: "backup";
      /** As for a restore: acknowledged with `job.taken`. */
      jobId?: string;
      backupId: string;
      databaseName: string;
      /** The file's download name, also its name in the customer's copies. Absent: older servers. */
      fileName?: string;
      /** Collections of `databaseName` the dump leaves out (the database's exclusions). Absent: none. */
      excludeCollections?: string[];
    }
  | {
      type: "restore";
      /** The server's job (its ledger, modules/agent-jobs/): acknowledged with `job.taken`. Absent: older servers. */
      jobId?: string;
      restoreId: string;
      backupId: string;
      /** The config database whose connection is used (and, without targetDatabase, whose database is replaced). */
      databaseName: string;
      size: number;
      /** Restore into this MongoDB database on that connection instead ("restore as a copy"). */
      targetDatabase?: string;
      /** Only these collections of the backup (a point-in-time restore has them in its plan instead). */
      collections?: string[];
      /** A point-in-time restore: after the base backup, replay the plan's slices up to `until`. */
      pointInTime?: PointInTimeCommand;
      /**
       * The identity (`dbvid1_…`) that opens a backup sealed by a write-only agent, pasted in the
       * web's restore wizard and sealed there to this agent's identityRecipient (armored age): only
       * the agent opens it, uses it for this restore only and never saves it.
       */
      sealedIdentity?: string;
    }
  | {
      /** Read a stored backup back (download, decrypt, parse it all) and report `backup.verified`. */
      type: "verify";
      /** As for a restore: acknowledged with `job.taken`. Absent: older servers. */
      jobId?: string;
      backupId: string;
      databaseName: string;
      size: number;
      /** Documents per namespace the file should hold (as dumped); absent for old backups. */
      expected?: Record<string, number>;
      /**
       * SHA-256 (hex) of the stored file as recorded at upload (and after each rewrap): the reader
       * compares it with what it downloaded. Absent: older servers.
       */
      sha256?: string;
    }
  | {
      /**
       * A restore drill: restore the backup into `scratchDatabase` on `databaseName`'s connection,
       * check documents and indexes, drop it, report `restore.completed`/`restore.failed` with `drill`.
       */
      type: "drill";
      /** As for a restore: acknowledged with `job.taken`. */
      jobId?: string;
      restoreId: string;
      backupId: string;
      databaseName: string;
      size: number;
      scratchDatabase: string;
    }
  | { type: "upload.go"; backupId: string; partNumber: number }
  /** The config databases whose oplog this agent ships (point-in-time recovery), all of them: any other stops. */
  | { type: "pitr"; databases: string[] }
  /** The server's ledger holds jobs for this agent: fetch them (GET agentApi.jobs). */
  | { type: "work" }
  | { type: "restart" }
  | {
      type: "update";
      /** As for a restore: acknowledged with `job.taken`. Absent: older servers. */
      jobId?: string;
    }
  | { type: "reset"; agentToken: string }
  | { type: "close"; reason: string };

/** Paths of the agent's HTTP API. */
export const agentApi = {
  register: "/api/agent/register",
  checkKey: "/api/agent/check-key",
  databases: "/api/agent/databases",
  uploadStatus: (backupId: string) => `/api/agent/backups/${backupId}/upload`,
  part: (backupId: string, partNumber: number) => `/api/agent/backups/${backupId}/parts/${partNumber}`,
  complete: (backupId: string) => `/api/agent/backups/${backupId}/complete`,
  fail: (backupId: string) => `/api/agent/backups/${backupId}/fail`,
  download: (backupId: string) => `/api/agent/backups/${backupId}/download`,
  backupKeys: "/api/agent/backup-keys",
  /** PUT: the key ids the agent's keyring holds now (`key rotate`, `key import`), without waiting for its next hello. */
  keyIds: "/api/agent/key-ids",
  /** POST: may this agent stop copying to a destination? 409 BACKUPS_PROTECTED under "Protect backups". */
  copyRemoval: "/api/agent/copies/removal",
  /** GET: the copies of this agent's backups it reported written, to check (`copies check`). */
  copies: "/api/agent/copies",
  /** POST: what the check found of each copy. */
  copyChecks: "/api/agent/copies/checks",
  /** GET: how long the account's retention keeps a backup at least (`copies add --object-lock` locks copies no shorter). */
  copyLockFloor: "/api/agent/copies/lock-floor",
  header: (backupId: string) => `/api/agent/backups/${backupId}/header`,
  /** GET: a page of a point-in-time restore's plan (PointInTimePlanQuery → PointInTimePlanPage), for the agent it was sent to. */
  pointInTimePlan: (restoreId: string) => `/api/agent/restores/${restoreId}/pitr-plan`,
  /** A stored oplog slice of one of the agent's databases, as uploaded (GET). */
  sliceDownload: (sliceId: string) => `/api/agent/pitr/slices/${sliceId}/download`,
  /** GET: the agent's jobs of the server's ledger not started (AgentJobsAnswer); each counts as sent. */
  jobs: "/api/agent/jobs",
  /** POST: the agent took the job into its queue (as `job.taken` on the socket). */
  jobAck: (jobId: string) => `/api/agent/jobs/${jobId}/ack`,
  socket: "/api/agents/ws",
  releases: "/api/agent/releases",
  binary: (fileName: string) => `/downloads/${fileName}`,
} as const;

/**
 * GET agentApi.jobs: the agent's jobs not started whose lease runs, oldest first, each the command
 * as the socket would carry it with its `jobId` (ServerMessage; checked by the agent as it handles it).
 */
export const AgentJobsAnswer = T.Object({ jobs: T.Array(T.Object({ type: T.String(), jobId: T.String() }, { additionalProperties: true })) });
export type AgentJobsAnswer = { jobs: (ServerMessage & { jobId: string })[] };

/** GET /api/agent/backup-keys: the completed backups an agent may rewrap, with the key id each was last recorded under. */
export const BackupKeysAnswer = T.Object({
  backups: T.Array(
    T.Object({
      id: T.String(),
      databaseName: T.String(),
      createdAt: T.String({ format: "date-time" }),
      /** Key id (public fingerprint) the agent reported; null for backups made before agents reported it. */
      keyId: T.Union([T.String(), T.Null()]),
    }),
  ),
});
export type BackupKeysAnswer = Static<typeof BackupKeysAnswer>;

/**
 * PUT /api/agent/key-ids: the key ids (public fingerprints, master key first) of the agent's
 * keyring after `key rotate` or `key import`, as its hello would say them: the server sends the
 * restores and verifications of backups made with the new key to this agent at once, not after
 * `dbvault-agent run` reconnects.
 */
export const AgentKeyIds = T.Object({ keyIds: T.Array(T.String({ pattern: "^[0-9a-f]{32}$" }), { minItems: 1, maxItems: 100 }) });
export type AgentKeyIds = Static<typeof AgentKeyIds>;

/** POST /api/agent/copies/removal: the destination `copies remove` would drop (its label only, never credentials). */
export const CopyRemovalRequest = T.Object({ destination: T.String({ minLength: 1, maxLength: 500 }) });
export type CopyRemovalRequest = Static<typeof CopyRemovalRequest>;
export const CopyRemovalAnswer = T.Object({ allowed: T.Literal(true) });
export type CopyRemovalAnswer = Static<typeof CopyRemovalAnswer>;

/** Every how often the agent checks its copies (a HEAD of each, a full read-back of one). */
export const COPY_CHECK_INTERVAL_MS = 24 * 3_600_000;

/** GET /api/agent/copies: one copy the agent reported written, as it was written, and what the last check found. */
export const CopyToCheck = T.Object({
  backupId: T.String(),
  databaseName: T.String(),
  destination: T.String(),
  key: T.String(),
  status: T.Union([T.Literal("stored"), T.Literal("missing"), T.Literal("changed")]),
  size: T.Union([T.Integer(), T.Null()]),
  sha256: T.Union([T.String(), T.Null()]),
  etag: T.Union([T.String(), T.Null()]),
  checkedAt: T.Union([T.String({ format: "date-time" }), T.Null()]),
});
export type CopyToCheck = Static<typeof CopyToCheck>;
export const CopiesToCheckAnswer = T.Object({
  copies: T.Array(CopyToCheck),
  /** Whether a daily check is due (a copy unchecked for COPY_CHECK_INTERVAL_MS), by the server's clock. */
  due: T.Boolean(),
});
export type CopiesToCheckAnswer = Static<typeof CopiesToCheckAnswer>;

/**
 * What the check found of one copy. present: HEAD found its size (and ETag) as written, and the
 * read-back, when this copy was the sample, its SHA-256. missing: the bucket has no such object
 * (or no longer the bucket). changed: other size, ETag or SHA-256. unreachable: the bucket
 * could not be asked (refused, down): nothing is known of the copy.
 */
export const COPY_CHECK_OUTCOMES = ["present", "missing", "changed", "unreachable"] as const;
export type CopyCheckOutcome = (typeof COPY_CHECK_OUTCOMES)[number];
export const CopyCheckResult = T.Object({
  backupId: T.String({ minLength: 1, maxLength: 64 }),
  destination: T.String({ minLength: 1, maxLength: 500 }),
  outcome: T.Union(COPY_CHECK_OUTCOMES.map((outcome) => T.Literal(outcome))),
  /** Whether the whole object was downloaded and its SHA-256 compared. */
  readBack: T.Boolean(),
  /** One sentence for people: what differs, or why the bucket could not be asked; never a credential. */
  detail: T.Optional(T.String({ maxLength: 1000 })),
});
export type CopyCheckResult = Static<typeof CopyCheckResult>;
/** POST /api/agent/copies/checks. */
export const CopyCheckReport = T.Object({ results: T.Array(CopyCheckResult, { minItems: 1, maxItems: 10_000 }) });
export type CopyCheckReport = Static<typeof CopyCheckReport>;
/** How many results were recorded, and how many copies newly found missing or changed (each raised an alert). */
export const CopyCheckAnswer = T.Object({ recorded: T.Integer(), alerts: T.Integer() });
export type CopyCheckAnswer = Static<typeof CopyCheckAnswer>;

/** GET /api/agent/copies/lock-floor: the days the account's retention keeps each backup at least, and the rule in words; null days without a rule. */
export const CopyLockFloorAnswer = T.Object({ days: T.Union([T.Integer({ minimum: 1 }), T.Null()]), rule: T.String() });
export type CopyLockFloorAnswer = Static<typeof CopyLockFloorAnswer>;

/** PUT /api/agent/backups/:id/header: the stored file now starts with the new header; its new size and checksum. */
export const HeaderReplaced = T.Object({ keyId: T.String(), size: T.Integer(), sha256: T.String() });
export type HeaderReplaced = Static<typeof HeaderReplaced>;

/** GET /api/agent/releases, as far as an agent reads it (the server's model adds more). */
export type ReleasesAnswer = { version: string; publicKey: string; manifest: string; signature: string };
