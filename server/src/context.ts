import type { Database, Db } from "@db/client";
import type { ApiKeyVault } from "./lib/api-key-vault";
import type { SecretBox } from "./lib/secret-box";
import type { ReleaseKey } from "./lib/release-key";
import type { Config } from "./config";
import type { ClusterBus } from "./lib/cluster-bus";
import type { EventBus } from "./lib/event-bus";
import type { Logger } from "./lib/logger";
import type { RateLimiter } from "./lib/rate-limiter";
import type { Mailer } from "./modules/mail/mailer";
import type { SessionTokens } from "./modules/auth/session-tokens";
import type { Storage } from "./storage";
import type { BodyGate } from "./modules/uploads/body-gate";
import type { RunningHashes } from "./modules/uploads/running-hashes";
import type { PendingWork } from "./lib/pending-work";
import type { QueueDispatcher } from "./lib/delivery-queue";
import type { Metrics } from "./modules/metrics/service";
import type { InstanceCaches } from "./lib/instance-caches";

/** Everything a service needs, passed explicitly so tests can build one with their own parts. */
export type AppContext = {
  config: Config;
  database: Database;
  db: Db;
  log: Logger;
  mailer: Mailer;
  apiKeys: ApiKeyVault;
  /** Seals two-factor seeds and hashes recovery codes (lib/secret-box.ts). */
  twoFactorBox: SecretBox;
  /** Seals webhooks' signing secrets (the server must read them back to sign). */
  webhookBox: SecretBox;
  /** Seals queued e-mail bodies (a reset link holds a token the database otherwise keeps only hashed). */
  mailBox: SecretBox;
  /** Hashes API tokens for automation (modules/api-tokens): looked up, never read back. */
  apiTokenBox: SecretBox;
  /** Seals the secrets of agent commands while they cross the cluster bus (lib/agent-commands.ts). */
  commandBox: SecretBox;
  /** Seals SSO client secrets and PKCE verifiers of sign-ins in flight (modules/sso). */
  ssoBox: SecretBox;
  tokens: SessionTokens;
  /** The public key the agent release manifest must be signed with; the server signs nothing (lib/release-key.ts). */
  releaseKey: ReleaseKey;
  events: EventBus;
  /** Messages between server instances (agent commands, browser events) over LISTEN/NOTIFY. */
  bus: ClusterBus;
  storage: Storage;
  /** Rate-limit counters in the database, shared by every instance (see modules/auth/throttle.ts). */
  rateLimiter: RateLimiter;
  /** Admission of upload part bodies, server-wide (see body-gate.ts). */
  bodyGate: BodyGate;
  /** SHA-256 of each backup uploading here, fed part by part (see running-hashes.ts). */
  runningHashes: RunningHashes;
  /** Socket close handlers still running; shutdown waits for them before closing the database. */
  pendingWork: PendingWork;
  now: () => Date;
  /** This instance's Prometheus registry (GET /metrics). */
  metrics: Metrics;
  /** Sends queued webhook deliveries in the background (modules/webhooks/deliveries.ts). */
  webhooks: QueueDispatcher;
  /** Sends queued e-mail in the background (modules/mail/outbox.ts). */
  mail: QueueDispatcher;
  /** What this instance remembers between calls to spare a peer the same question (lib/instance-caches.ts). */
  caches: InstanceCaches;
};
