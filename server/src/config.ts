import { resolve } from "node:path";
import { ObjectLockUnsupportedError, StorageUrlError } from "./storage/errors";
import { parseStorageUrl } from "./storage/storage-url";
import { encodePublicKey, signingKeyFromSeed } from "@protocol/release-manifest";

/** Every setting of the server, read once from the environment at start-up. */
export type Config = {
  port: number;
  host: string;
  publicUrl: string;
  /**
   * False when PUBLIC_URL is not set (publicUrl is then http://localhost:PORT): pages and scripts
   * a user fetches from another machine take the address the request came to instead
   * (lib/request-origin.ts); e-mailed links, sent outside any request, keep publicUrl.
   */
  publicUrlSet: boolean;
  dataDir: string;
  /** Empty: embedded PGlite in `${dataDir}/pglite`. */
  databaseUrl: string | null;
  /** `file:///abs/path` or `s3://bucket?endpoint=…`. */
  storageUrl: string;
  /**
   * STORAGE_REPLICA_URL: a second storage (another bucket, region or folder; the same URL forms as
   * STORAGE_URL) that every object is also written to; null: none.
   */
  storageReplicaUrl: string | null;
  /** S3 settings from the usual S3_* / AWS_* variables, for what an s3:// STORAGE_URL leaves out. */
  s3Defaults: S3Defaults;
  /**
   * STORAGE_OBJECT_LOCK: every backup file and manifest gets an S3 Object Lock retention in this
   * mode until its retention rule lets it go; null (the default): no lock. s3:// only.
   */
  storageObjectLock: "compliance" | "governance" | null;
  /** Empty: mail is written to the log. */
  smtpUrl: string | null;
  mailFrom: string;
  /** Null: generated once and kept in `${dataDir}/secrets.json`. */
  jwtSecret: string | null;
  apiKeySecret: string | null;
  /** Base64 of the 32-byte Ed25519 seed signing the agent release manifest; null: generated into secrets.json. */
  releaseSigningKey: string | null;
  /**
   * Base64 of the 32-byte Ed25519 public key whose signature the agent release manifest must carry
   * (the key itself stays where builds are made); null: the public half of releaseSigningKey.
   */
  releasePublicKey: string | null;
  sessionHours: number;
  adminEmail: string | null;
  adminPassword: string | null;
  logLevel: "debug" | "info" | "warn" | "error";
  /**
   * How many reverse proxies stand in front of the server: the client address is taken that many
   * entries from the right of X-Forwarded-For (entries further left are the client's to choose).
   * 0: the socket's address.
   */
  trustProxyHops: number;
  /** Accounts one address may create per hour. */
  registrationsPerHour: number;
  /**
   * Where the agent binaries to hand out live (`dbvault-agent-<platform>` or, for the host's own
   * platform, the build's `dbvault-agent`). Null: the checkout's `dist/`, or the copy embedded in
   * the single-file server.
   */
  agentDir: string | null;
  /** Bearer token of GET /metrics (Prometheus); null: the route answers 404. */
  metricsToken: string | null;
  /**
   * SSO_DNS_RESOLVER: the DNS server (`host` or `host:port`) that checks the TXT records proving an
   * organization owns an SSO domain; null: the system's resolvers.
   */
  ssoDnsResolver: string | null;
  /** REQUIRE_ADMIN_2FA: admins must turn two-factor sign-in on before the admin routes answer. */
  requireAdminTwoFactor: boolean;
  /**
   * WEBHOOK_ALLOW_PRIVATE: webhooks may reach loopback, private, link-local and metadata addresses
   * and use plain http (self-hosters on an internal network, and the tests). Off: https to public
   * addresses only.
   */
  webhookAllowPrivate: boolean;
  /**
   * SSO_ALLOW_PRIVATE: an SSO provider's discovery, JWKS and token endpoints may be on loopback,
   * private and link-local addresses (a self-hoster's provider on an internal network, and the
   * tests). Off: public addresses only, as for webhooks, so an issuer cannot scan the server's network.
   */
  ssoAllowPrivate: boolean;
};

export type S3Defaults = { accessKeyId?: string; secretAccessKey?: string; sessionToken?: string; region?: string; endpoint?: string };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

type Env = Record<string, string | undefined>;

/**
 * What is wrong with a URL that may hold credentials, or null. Never quotes the URL: its password
 * would end up in the terminal and the service manager's log.
 */
function urlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "is not a valid URL";
  }
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    return "has a malformed %-escape in its user name or password (write % itself as %25)";
  }
  return null;
}

/** STORAGE_URL's own rules (storage/storage-url.ts); its messages never quote credentials. */
function storageUrlProblem(value: string): string | null {
  try {
    parseStorageUrl(value);
    return null;
  } catch (error) {
    return error instanceof StorageUrlError ? error.message : "is not a valid storage URL";
  }
}

/** What is wrong with a storage URL setting (STORAGE_URL, STORAGE_REPLICA_URL), named after it, or null. */
function storageSettingProblem(name: string, value: string): string | null {
  if (!/^(file|s3):\/\/.+/.test(value)) return `${name} must be file://PATH or s3://BUCKET?endpoint=URL`;
  const problem = urlProblem(value) ?? storageUrlProblem(value);
  if (!problem) return null;
  return problem.startsWith("STORAGE_URL:") ? `${name}:${problem.slice("STORAGE_URL:".length)}` : `${name} ${problem}`;
}

/** Reads and validates the configuration; throws ConfigError listing every bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const text = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : null;
  };
  const integer = (name: string, fallback: number, min: number, max: number) => {
    const raw = text(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };

  const port = integer("PORT", 3000, 0, 65535);
  const host = text("HOST") ?? "0.0.0.0";
  const dataDir = resolve(text("DATA_DIR") ?? "./data");

  const publicUrl = (text("PUBLIC_URL") ?? `http://localhost:${port}`).replace(/\/+$/, "");
  if (!/^https?:\/\/[^/\s]+/.test(publicUrl) || /\s/.test(publicUrl) || !URL.canParse(publicUrl)) {
    problems.push(`PUBLIC_URL must be an http(s) URL (got "${publicUrl}")`);
  }

  const databaseUrl = text("DATABASE_URL");
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push("DATABASE_URL must start with postgres:// or postgresql://");
  } else if (databaseUrl) {
    const problem = urlProblem(databaseUrl);
    if (problem) problems.push(`DATABASE_URL ${problem} (postgres://user:password@host:5432/database)`);
  }

  const storageUrl = text("STORAGE_URL") ?? `file://${resolve(dataDir, "backups")}`;
  // Checked here, with the others, rather than when the storage is built after the database
  // has been opened and migrated (then it ended the start with a stack trace).
  const storageProblem = storageSettingProblem("STORAGE_URL", storageUrl);
  if (storageProblem) problems.push(storageProblem);
  const storageReplicaUrl = text("STORAGE_REPLICA_URL");
  if (storageReplicaUrl) {
    const problem = storageSettingProblem("STORAGE_REPLICA_URL", storageReplicaUrl);
    if (problem) problems.push(problem);
    else if (storageReplicaUrl.replace(/\/+$/, "") === storageUrl.replace(/\/+$/, "")) {
      problems.push("STORAGE_REPLICA_URL names the same storage as STORAGE_URL: give it another bucket, region or folder, or leave it unset");
    }
  }

  const storageObjectLock = text("STORAGE_OBJECT_LOCK")?.toLowerCase() ?? null;
  if (storageObjectLock !== null && storageObjectLock !== "compliance" && storageObjectLock !== "governance") {
    problems.push(`STORAGE_OBJECT_LOCK must be compliance or governance, or unset for no lock (got "${storageObjectLock}")`);
  } else if (storageObjectLock && storageUrl.startsWith("file:")) {
    problems.push(new ObjectLockUnsupportedError("file (file://)").message);
  } else if (storageObjectLock && storageReplicaUrl?.startsWith("file:")) {
    // The lock applies to both sides: a replica that cannot keep it would hold deletable copies.
    problems.push(`${new ObjectLockUnsupportedError("file (file://) replica").message.replace("an s3:// STORAGE_URL", "an s3:// STORAGE_REPLICA_URL")}`);
  }

  const smtpUrl = text("SMTP_URL");
  if (smtpUrl && !/^smtps?:\/\/.+/.test(smtpUrl)) problems.push("SMTP_URL must start with smtp:// or smtps://");
  else if (smtpUrl) {
    const problem = urlProblem(smtpUrl);
    if (problem) problems.push(`SMTP_URL ${problem} (smtp://user:password@host:587)`);
  }

  const jwtSecret = text("JWT_SECRET");
  if (jwtSecret && jwtSecret.length < 32) problems.push("JWT_SECRET must be at least 32 characters");
  const apiKeySecret = text("API_KEY_SECRET");
  if (apiKeySecret && apiKeySecret.length < 32) problems.push("API_KEY_SECRET must be at least 32 characters");

  const releaseSigningKey = text("RELEASE_SIGNING_KEY");
  if (releaseSigningKey && !(/^[A-Za-z0-9+/]{43}=$/.test(releaseSigningKey) && Buffer.from(releaseSigningKey, "base64").byteLength === 32)) {
    problems.push("RELEASE_SIGNING_KEY must be 32 random bytes in base64 (44 characters ending in =; e.g. openssl rand -base64 32)");
  }
  const releasePublicKey = text("RELEASE_PUBLIC_KEY");
  if (releasePublicKey && !(/^[A-Za-z0-9+/]{43}=$/.test(releasePublicKey) && Buffer.from(releasePublicKey, "base64").byteLength === 32)) {
    problems.push("RELEASE_PUBLIC_KEY must be an Ed25519 public key: 32 bytes in base64 (44 characters ending in =), as npm run build:agent prints it");
  } else if (releasePublicKey && releaseSigningKey && !problems.some((problem) => problem.startsWith("RELEASE_SIGNING_KEY"))) {
    if (encodePublicKey(signingKeyFromSeed(Buffer.from(releaseSigningKey, "base64"))) !== releasePublicKey) {
      problems.push("RELEASE_PUBLIC_KEY is not the public half of RELEASE_SIGNING_KEY: give the server only RELEASE_PUBLIC_KEY");
    }
  }

  const adminEmail = text("ADMIN_EMAIL")?.toLowerCase() ?? null;
  const adminPassword = text("ADMIN_PASSWORD");
  if (Boolean(adminEmail) !== Boolean(adminPassword)) problems.push("ADMIN_EMAIL and ADMIN_PASSWORD must be set together");
  if (adminPassword && adminPassword.length < 6) problems.push("ADMIN_PASSWORD must be at least 6 characters");

  const metricsToken = text("METRICS_TOKEN");
  if (metricsToken && metricsToken.length < 16) problems.push("METRICS_TOKEN must be at least 16 characters");

  const logLevel = (text("LOG_LEVEL") ?? "info") as Config["logLevel"];
  if (!["debug", "info", "warn", "error"].includes(logLevel)) problems.push("LOG_LEVEL must be debug, info, warn or error");

  const ssoDnsResolver = text("SSO_DNS_RESOLVER");
  if (ssoDnsResolver && !/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(:\d{1,5})?$/.test(ssoDnsResolver)) {
    problems.push(`SSO_DNS_RESOLVER must be a DNS server's IP address, as 1.1.1.1, 127.0.0.1:5353 or [::1]:53 (got "${ssoDnsResolver}")`);
  }

  const trustProxyRaw = text("TRUST_PROXY") ?? "false";
  const trustProxyHops = trustProxyRaw === "true" ? 1 : trustProxyRaw === "false" ? 0 : Number(trustProxyRaw);
  if (!Number.isInteger(trustProxyHops) || trustProxyHops < 0 || trustProxyHops > 10 || !/^(true|false|\d+)$/.test(trustProxyRaw)) {
    problems.push(`TRUST_PROXY must be false, true (one proxy) or the number of proxies from 0 to 10 (got "${trustProxyRaw}")`);
  }

  const requireAdminTwoFactorRaw = text("REQUIRE_ADMIN_2FA") ?? "false";
  if (!["true", "false"].includes(requireAdminTwoFactorRaw)) {
    problems.push(`REQUIRE_ADMIN_2FA must be true or false (got "${requireAdminTwoFactorRaw}")`);
  }

  const webhookAllowPrivateRaw = text("WEBHOOK_ALLOW_PRIVATE") ?? "false";
  if (!["true", "false"].includes(webhookAllowPrivateRaw)) {
    problems.push(`WEBHOOK_ALLOW_PRIVATE must be true or false (got "${webhookAllowPrivateRaw}")`);
  }

  const ssoAllowPrivateRaw = text("SSO_ALLOW_PRIVATE") ?? "false";
  if (!["true", "false"].includes(ssoAllowPrivateRaw)) {
    problems.push(`SSO_ALLOW_PRIVATE must be true or false (got "${ssoAllowPrivateRaw}")`);
  }

  const config: Config = {
    port,
    host,
    publicUrl,
    publicUrlSet: text("PUBLIC_URL") !== null,
    dataDir,
    databaseUrl,
    storageUrl,
    storageReplicaUrl,
    // The same variables Bun's S3 client reads by itself; read here so every S3 request signs alike.
    s3Defaults: {
      accessKeyId: text("S3_ACCESS_KEY_ID") ?? text("AWS_ACCESS_KEY_ID") ?? undefined,
      secretAccessKey: text("S3_SECRET_ACCESS_KEY") ?? text("AWS_SECRET_ACCESS_KEY") ?? undefined,
      sessionToken: text("S3_SESSION_TOKEN") ?? text("AWS_SESSION_TOKEN") ?? undefined,
      region: text("S3_REGION") ?? text("AWS_REGION") ?? undefined,
      endpoint: text("S3_ENDPOINT") ?? text("AWS_ENDPOINT") ?? undefined,
    },
    storageObjectLock: storageObjectLock as Config["storageObjectLock"],
    smtpUrl,
    mailFrom: text("MAIL_FROM") ?? "DBVault <no-reply@dbvault.local>",
    jwtSecret,
    apiKeySecret,
    releaseSigningKey,
    releasePublicKey,
    sessionHours: integer("SESSION_HOURS", 24 * 7, 1, 24 * 365),
    adminEmail,
    adminPassword,
    logLevel,
    trustProxyHops: Number.isInteger(trustProxyHops) ? trustProxyHops : 0,
    registrationsPerHour: integer("REGISTRATIONS_PER_HOUR", 10, 1, 1_000_000),
    agentDir: text("AGENT_DIR") ? resolve(text("AGENT_DIR")!) : null,
    metricsToken,
    ssoDnsResolver,
    requireAdminTwoFactor: requireAdminTwoFactorRaw === "true",
    webhookAllowPrivate: webhookAllowPrivateRaw === "true",
    ssoAllowPrivate: ssoAllowPrivateRaw === "true",
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
