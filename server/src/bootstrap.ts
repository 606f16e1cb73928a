import { existsSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { type Database, ensurePgliteCluster, openPglite, openPostgres } from "@db/client";
import { migrate } from "@db/migrate";
import { users } from "@db/schema";
import type { Config } from "./config";
import type { AppContext } from "./context";
import { createApiKeyVault } from "./lib/api-key-vault";
import { createSecretBox } from "./lib/secret-box";
import { createClusterBus } from "./lib/cluster-bus";
import { makeDataDirPrivate } from "./lib/private-data-dir";
import { lockEmbeddedDatabase } from "./lib/embedded-database-lock";
import { findEmbeddedFile } from "./lib/embedded-files";
import { createEventBus } from "./lib/event-bus";
import { createLogger, type Logger } from "./lib/logger";
import { createRateLimiter } from "./lib/rate-limiter";
import { loadServerSecrets } from "./lib/secrets";
import { resolveReleaseKey } from "./lib/release-key";
import { createUser } from "./modules/auth/service";
import { createSessionTokens } from "./modules/auth/session-tokens";
import { seedKnowledgeBase } from "./modules/kb/seed";
import { createMailer } from "./modules/mail/mailer";
import { createMailDispatcher } from "./modules/mail/outbox";
import { createMetrics } from "./modules/metrics/service";
import { seedPlans } from "./modules/plans/service";
import { updateAccount } from "./modules/users/account-rows";
import { createWebhookDispatcher } from "./modules/webhooks/deliveries";
import { createStorage } from "./storage";
import { createBodyGate } from "./modules/uploads/body-gate";
import { createRunningHashes } from "./modules/uploads/running-hashes";
import { createPendingWork } from "./lib/pending-work";
import { createInstanceCaches } from "./lib/instance-caches";

/** Name of the fresh PGlite cluster embedded in the single-file server (scripts/build-server.ts). */
export const PGLITE_TEMPLATE_FILE = "pglite-template.tar.gz";

/**
 * Opens the configured metadata database: Postgres when DATABASE_URL is set, else embedded
 * PGlite, created on the first start from the template embedded in the single-file server when
 * there is one (about a second), else by initdb in `initEmbedded` (several seconds).
 */
export async function openDatabase(config: Config, initEmbedded: (dataDir: string) => Promise<void>, log?: Logger): Promise<Database> {
  const fixed = makeDataDirPrivate(config.dataDir);
  if (fixed.length > 0)
    log?.warn("made the data directory private (folders 0700, files 0600)", { dataDir: config.dataDir, changed: fixed.length, examples: fixed.slice(0, 5) });
  if (config.databaseUrl) return openPostgres(config.databaseUrl);
  // Before anything touches the cluster (even creating it): one process at a time.
  const lock = lockEmbeddedDatabase(config.dataDir);
  if (lock.takenOverFrom !== null) {
    log?.warn("the previous server on this data directory did not stop cleanly; the embedded database recovers from its log", { pid: lock.takenOverFrom });
  }
  try {
    const dir = join(config.dataDir, "pglite");
    if (!existsSync(join(dir, "PG_VERSION"))) log?.info("creating the embedded database (first start)", { dir });
    const started = performance.now();
    const how = await ensurePgliteCluster(dir, initEmbedded, findEmbeddedFile(PGLITE_TEMPLATE_FILE));
    if (how !== "existing") log?.info("embedded database created", { from: how, seconds: Number(((performance.now() - started) / 1000).toFixed(1)) });
    // PGlite sets its files' modes itself (0666 or 0644), whatever the umask: once open, make what
    // it created private too. Files it adds while running sit inside these 0700 folders (nobody
    // else can reach them) and are fixed at the next start.
    const database = await openPglite(dir);
    makeDataDirPrivate(dir);
    return {
      ...database,
      async close() {
        await database.close();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** Builds the context of a running server around an open database: migrations, seed data, services. */
export async function createContext(config: Config, database: Database, options: { log?: Logger; now?: () => Date } = {}): Promise<AppContext> {
  const log = options.log ?? createLogger(config.logLevel);
  const now = options.now ?? (() => new Date());
  const { applied } = await migrate(database.db);
  if (applied.length > 0) log.info("database migrated", { applied });
  const storage = createStorage(config.storageUrl, config.s3Defaults, config.storageObjectLock, {
    url: config.storageReplicaUrl,
    // The backup goes on (the other side holds the object); the operator learns which side lags.
    onFailure: ({ side, operation, key, error }) =>
      log.warn(`backup storage: the ${side} side missed a ${operation}; the repair pass will copy what it lacks`, { key, reason: error.message }),
  });
  const secrets = loadServerSecrets(config.dataDir, { jwtSecret: config.jwtSecret, apiKeySecret: config.apiKeySecret }, ["jwtSecret", "apiKeySecret"]);
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    log,
    mailer: createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, log }),
    apiKeys: createApiKeyVault(secrets.apiKeySecret),
    twoFactorBox: createSecretBox(secrets.apiKeySecret, "two-factor"),
    webhookBox: createSecretBox(secrets.apiKeySecret, "webhook"),
    mailBox: createSecretBox(secrets.apiKeySecret, "mail"),
    apiTokenBox: createSecretBox(secrets.apiKeySecret, "api-token"),
    commandBox: createSecretBox(secrets.apiKeySecret, "agent-command"),
    ssoBox: createSecretBox(secrets.apiKeySecret, "sso"),
    tokens: createSessionTokens(secrets.jwtSecret, config.sessionHours),
    releaseKey: await resolveReleaseKey(config),
    events: createEventBus((error, event) => log.error("event handler failed", { event: event.type, error })),
    bus: createClusterBus(database, log),
    storage,
    // Read through ctx so a test that moves ctx.now moves the limits' clock too.
    rateLimiter: createRateLimiter(database.db, () => ctx.now()),
    bodyGate: createBodyGate(),
    runningHashes: createRunningHashes(),
    pendingWork: createPendingWork(),
    now,
    metrics: createMetrics({ db: database.db, now, storage }),
    webhooks: createWebhookDispatcher(() => ctx),
    mail: createMailDispatcher(() => ctx),
    caches: createInstanceCaches(),
  };
  await ctx.bus.start();
  await seedPlans(ctx.db);
  await seedKnowledgeBase(ctx);
  await ensureFirstAdmin(ctx);
  return ctx;
}

/**
 * Said at each start while the server has no administrator: on a self-hosted server the first
 * account cannot reach point-in-time recovery or the paid plans' limits, and the web never says why.
 */
export const NO_ADMIN_HINT =
  "no administrator account yet: set ADMIN_EMAIL and ADMIN_PASSWORD and restart to make one (an existing account with that e-mail is made admin); an administrator sets each account's plan in /admin, which opens point-in-time recovery and the paid plans' limits";

/** Creates the ADMIN_EMAIL account (or gives it the admin role) when configured; without it, says how while there is no admin. */
export async function ensureFirstAdmin(ctx: AppContext) {
  const { adminEmail, adminPassword } = ctx.config;
  if (!adminEmail || !adminPassword) {
    const [admin] = await ctx.db.select({ id: users.id }).from(users).where(eq(users.role, "admin")).limit(1);
    if (!admin) ctx.log.warn(NO_ADMIN_HINT);
    return;
  }
  const [existing] = await ctx.db.select().from(users).where(eq(users.email, adminEmail));
  if (!existing) {
    await createUser(ctx, { name: "Administrator", email: adminEmail, password: adminPassword, role: "admin" });
    ctx.log.info("first admin created", { email: adminEmail });
  } else if (existing.role !== "admin") {
    await updateAccount(ctx.db, existing.id, { role: "admin" });
    ctx.log.info("admin role granted", { email: adminEmail });
  }
}
