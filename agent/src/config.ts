// The agent's config file: where it is, what it holds, and reading/writing it safely. It holds
// the master key and connection strings, so it is written 0600 in a 0700 directory, refused when
// others can read it, and never echoed: messages name fields and database names, not values.
//
// { "version": 1, "masterKey": "dbvk1_…", "oldKeys": ["dbvk1_…"], "databases": [{ "name": "shop", "uri": "mongodb://…", "usersAndRoles": false }],
//   "server": { "url", "apiKey", "agentId", "agentToken", "releaseKey" }, "tools": { "mode", "mongodump", "mongorestore" },
//   "compression": "zstd" }
import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { syncDirectory } from "./platform/sync-directory.ts";
import {
  type Compression,
  decodeIdentity,
  decodeMasterKey,
  decodeRecipient,
  deriveKeyId,
  InvalidKeyError,
  recipientFingerprint,
  recipientOf,
} from "./archive/index.ts";
import type { ToolsConfig } from "./dump/types.ts";
import { defaultConfigPath } from "./platform/locations.ts";
import type { CopyEntry } from "./copies/copy-destination.ts";

export const CONFIG_VERSION = 1;

export interface DatabaseEntry {
  /** The display name, also what the server knows the database by. */
  name: string;
  /** The connection string; its path names the MongoDB database (none: every database). */
  uri: string;
  /**
   * With every database (or admin): whether backups hold admin's users, roles and version and
   * restores bring users and roles back, as mongodump and mongorestore do. Default true.
   */
  usersAndRoles?: boolean;
}

/** Filled in by `setup`: where the server is and how the agent signs in (`run` needs all four). */
export interface ServerSettings {
  url: string;
  apiKey: string;
  agentId?: string;
  agentToken?: string;
  /**
   * The server's release signing key (Ed25519, base64), pinned at setup: an update is installed
   * only from a release manifest this key signed.
   */
  releaseKey?: string;
}

export interface AgentConfig {
  version: typeof CONFIG_VERSION;
  /** The master key in its `dbvk1_` text form; absent until `key generate`. New backups use it. */
  masterKey?: string;
  /**
   * The keys `key rotate` replaced, newest first (`dbvk1_` text): with the master key they make
   * the keyring, which opens every backup whatever key it was made with.
   */
  oldKeys?: string[];
  /**
   * Write-only mode (`key mode write-only`): the X25519 public key (`dbvpk1_` text) new backups
   * are sealed to. Its private key is kept off this machine, so nothing here opens them.
   */
  recipient?: string;
  /**
   * A restore agent (`setup --role restore`): it holds `identities` and runs the verifications,
   * drills and restores of the backups sealed to them; the server sends it no backup. Absent: a
   * backup agent.
   */
  role?: "restore";
  /**
   * Identities (`dbvid1_` text: X25519 private keys) that open write-only agents' backups. Kept
   * by a restore agent, off the database hosts.
   */
  identities?: string[];
  databases: DatabaseEntry[];
  server?: ServerSettings;
  tools?: ToolsConfig;
  compression?: Compression;
  /** The customer's own buckets every backup is written to as well (credentials stay here). */
  copies?: CopyEntry[];
}

export type ConfigErrorCode =
  | "missing"
  | "unreadable"
  | "insecure-permissions"
  | "invalid"
  | "no-key"
  | "no-identity"
  | "key-exists"
  | "unknown-database"
  | "write-failed"
  | "not-set-up"
  | "already-set-up";

/** Every config problem: `code` for programs, `hint` for people. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    readonly code: ConfigErrorCode,
    message: string,
    readonly path: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

// The same rule the server applies to database names (protocol/agent-protocol.ts).
const DATABASE_NAME = /^[A-Za-z0-9][A-Za-z0-9._ -]{0,63}$/;
const COMPRESSIONS = ["zstd", "gzip", "none"];

/** Tells whether a display name is one the config and the server accept; never throws. */
export function isValidDatabaseName(name: string): boolean {
  return DATABASE_NAME.test(name);
}
const TOOL_MODES = ["auto", "native", "builtin"];

/** Returns --config when given, else this system's default (platform/locations.ts); never throws. */
export function resolveConfigPath(explicit: string | undefined, env: Record<string, string | undefined> = process.env): string {
  if (explicit !== undefined && explicit !== "") return explicit;
  return defaultConfigPath(env);
}

/** Reads and validates the config file; throws ConfigError (missing, unreadable, insecure-permissions, invalid). */
export async function loadConfig(path: string): Promise<AgentConfig> {
  let text: string;
  try {
    const info = await stat(path);
    if (process.platform !== "win32" && (info.mode & 0o077) !== 0) {
      throw new ConfigError(
        "insecure-permissions",
        `the config file ${path} can be read by other users (mode ${(info.mode & 0o777).toString(8).padStart(4, "0")})`,
        path,
        `it holds the master key and connection strings: run chmod 600 ${path}`,
      );
    }
    text = await readFile(path, "utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new ConfigError("missing", `no config file at ${path}`, path, `create one with: dbvault-agent key generate --config ${path}`);
    }
    throw new ConfigError("unreadable", `cannot read the config file ${path} (${code ?? "error"})`, path);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError("invalid", `the config file ${path} is not valid JSON`, path, "fix the file by hand or restore it from a copy");
  }
  return validateConfig(parsed, path);
}

/** Checks a parsed config and lists every problem at once; throws ConfigError "invalid". */
export function validateConfig(value: unknown, path: string): AgentConfig {
  const problems: string[] = [];
  if (!isObject(value)) throw new ConfigError("invalid", `the config file ${path} is not a JSON object`, path);
  if (value.version !== CONFIG_VERSION) problems.push(`version must be ${CONFIG_VERSION}`);
  if (value.masterKey !== undefined && typeof value.masterKey !== "string") problems.push("masterKey must be a string");
  if (value.recipient !== undefined && typeof value.recipient !== "string") problems.push("recipient must be a string");
  if (value.oldKeys !== undefined && !(Array.isArray(value.oldKeys) && value.oldKeys.every((key) => typeof key === "string"))) {
    problems.push("oldKeys must be a list of keys");
  }
  if (value.role !== undefined && value.role !== "restore") problems.push('role must be "restore" (or absent, for a backup agent)');
  if (value.identities !== undefined && !(Array.isArray(value.identities) && value.identities.every((key) => typeof key === "string"))) {
    problems.push("identities must be a list of identities (dbvid1_…)");
  }
  const databases = value.databases ?? [];
  if (!Array.isArray(databases)) problems.push("databases must be a list");
  else {
    const seen = new Set<string>();
    databases.forEach((entry: unknown, index) => {
      if (!isObject(entry)) return problems.push(`databases[${index}] must be an object`);
      if (typeof entry.name !== "string" || !DATABASE_NAME.test(entry.name)) {
        problems.push(`databases[${index}].name must be 1 to 64 letters, digits, ".", "_", "-" or spaces`);
      } else if (seen.has(entry.name)) problems.push(`databases[${index}].name "${entry.name}" is used twice`);
      else seen.add(entry.name);
      if (typeof entry.uri !== "string" || !/^mongodb(\+srv)?:\/\//i.test(entry.uri)) {
        problems.push(`databases[${index}].uri must be a mongodb:// or mongodb+srv:// connection string`);
      }
      if (entry.usersAndRoles !== undefined && typeof entry.usersAndRoles !== "boolean")
        problems.push(`databases[${index}].usersAndRoles must be true or false`);
    });
  }
  if (value.server !== undefined) {
    if (!isObject(value.server)) problems.push("server must be an object");
    else {
      for (const field of ["url", "apiKey"]) if (typeof value.server[field] !== "string") problems.push(`server.${field} must be a string`);
      if (value.server.releaseKey !== undefined && (typeof value.server.releaseKey !== "string" || !/^[A-Za-z0-9+/]{43}=$/.test(value.server.releaseKey))) {
        problems.push("server.releaseKey must be a release signing key (44 characters of base64, as the web app shows it)");
      }
      for (const field of ["agentId", "agentToken"]) {
        if (value.server[field] !== undefined && typeof value.server[field] !== "string") problems.push(`server.${field} must be a string`);
      }
    }
  }
  if (value.tools !== undefined) {
    if (!isObject(value.tools)) problems.push("tools must be an object");
    else {
      if (value.tools.mode !== undefined && !TOOL_MODES.includes(value.tools.mode as string)) {
        problems.push(`tools.mode must be one of ${TOOL_MODES.join(", ")}`);
      }
      for (const field of ["mongodump", "mongorestore"]) {
        if (value.tools[field] !== undefined && typeof value.tools[field] !== "string") problems.push(`tools.${field} must be a path`);
      }
    }
  }
  if (value.copies !== undefined) {
    if (!Array.isArray(value.copies)) problems.push("copies must be a list");
    else problems.push(...value.copies.flatMap((entry: unknown, index) => copyEntryProblems(entry, `copies[${index}]`)));
  }
  if (value.compression !== undefined && !COMPRESSIONS.includes(value.compression as string)) {
    problems.push(`compression must be one of ${COMPRESSIONS.join(", ")}`);
  }
  if (problems.length > 0) {
    throw new ConfigError("invalid", `the config file ${path} is invalid: ${problems.join("; ")}`, path);
  }
  return { ...(value as object), databases } as AgentConfig;
}

/** The config at `path`, or a new empty one (no key, no server, no databases) when there is no file yet. */
export async function loadConfigOrEmpty(path: string): Promise<AgentConfig> {
  try {
    return await loadConfig(path);
  } catch (error) {
    if (error instanceof ConfigError && error.code === "missing") return { version: CONFIG_VERSION, databases: [] };
    throw error;
  }
}

/**
 * Writes the config atomically with mode 0600 (its directory 0700 when created): a temporary file,
 * flushed to disk, renamed over the old one, then the directory flushed. A crash or power cut at
 * any point leaves the old config or the new one, never an empty file in place of the master key.
 * Throws ConfigError "write-failed" (the old file untouched).
 */
export async function saveConfig(path: string, config: AgentConfig): Promise<void> {
  const temporary = join(dirname(path), `.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const file = await open(temporary, "wx", 0o600);
    try {
      await file.writeFile(`${JSON.stringify(config, null, 2)}\n`);
      await file.sync();
    } finally {
      await file.close();
    }
    await chmod(temporary, 0o600);
    await rename(temporary, path);
    await syncDirectory(dirname(path));
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new ConfigError("write-failed", `cannot write the config file ${path} (${code})`, path);
  }
}

/** Returns the database entry named `name`; throws ConfigError "unknown-database" listing the names there are. */
export function findDatabase(config: AgentConfig, name: string, path: string): DatabaseEntry {
  const entry = config.databases.find((candidate) => candidate.name === name);
  if (entry) return entry;
  const known = config.databases.map((candidate) => candidate.name);
  throw new ConfigError(
    "unknown-database",
    `no database named "${name}" in ${path}`,
    path,
    known.length > 0 ? `the config file has: ${known.join(", ")}` : `add one to the "databases" list of ${path}`,
  );
}

/** Decodes the config's master key; throws ConfigError "no-key" or "invalid" (never quoting the key). */
export function readMasterKey(config: AgentConfig, path: string): Buffer {
  if (config.masterKey === undefined) {
    throw new ConfigError("no-key", `the config file ${path} holds no master key`, path, `create one with: dbvault-agent key generate --config ${path}`);
  }
  return decodeConfigKey(config.masterKey, `the master key in ${path}`, path);
}

/**
 * Whom new backups are sealed to: the recipient of a write-only agent, else the master key.
 * Throws ConfigError "no-key" or "invalid".
 */
export function readSealingKey(config: AgentConfig, path: string): { recipient: Buffer } | { masterKey: Buffer } {
  if (config.recipient === undefined) return { masterKey: readMasterKey(config, path) };
  try {
    return { recipient: decodeRecipient(config.recipient) };
  } catch (error) {
    const detail = error instanceof InvalidKeyError ? error.message : "it cannot be decoded";
    throw new ConfigError("invalid", `the write-only public key in ${path} is not valid: ${detail}`, path, "run dbvault-agent key mode write-only again");
  }
}

/** The public fingerprint of what new backups are sealed to (key id, or recipient fingerprint). */
export function describeSealingKey(config: AgentConfig, path: string): { keyId: string; writeOnly: boolean } {
  const sealing = readSealingKey(config, path);
  if ("recipient" in sealing) return { keyId: recipientFingerprint(sealing.recipient).toString("hex"), writeOnly: true };
  return { keyId: deriveKeyId(sealing.masterKey), writeOnly: false };
}

/**
 * The keyring: the master key, then the older keys a rotation kept (newest first). Opening a
 * backup tries the one its header names. Throws like readMasterKey.
 */
export function readKeyring(config: AgentConfig, path: string): Buffer[] {
  const current = readMasterKey(config, path);
  const old = (config.oldKeys ?? []).map((text, index) => decodeConfigKey(text, `old key ${index + 1} of ${path}`, path));
  return [current, ...old];
}

/** The identities of a restore agent's config, decoded; throws ConfigError "invalid" (never quoting one). */
export function readIdentities(config: AgentConfig, path: string): Buffer[] {
  return (config.identities ?? []).map((text, index) => {
    try {
      return decodeIdentity(text);
    } catch (error) {
      const detail = error instanceof InvalidKeyError ? error.message : "it cannot be decoded";
      throw new ConfigError(
        "invalid",
        `identity ${index + 1} of ${path} is not valid: ${detail}`,
        path,
        "put back the identity exactly as key mode write-only wrote it",
      );
    }
  });
}

/**
 * Everything that opens backups: the config's keyring (none on a write-only or restore agent
 * without a master key), its identities and `extraIdentities` (one sent with a restore). Throws
 * ConfigError "no-key" when there is neither key nor identity ("no-identity" on a restore agent).
 */
export function readOpeningKeys(config: AgentConfig, path: string, extraIdentities: Buffer[] = []): { masterKey: Buffer[]; identities: Buffer[] } {
  const identities = [...readIdentities(config, path), ...extraIdentities];
  if (config.masterKey === undefined && identities.length > 0) return { masterKey: [], identities };
  // A restore agent never had a master key: "create one" would point at the wrong fix.
  if (config.masterKey === undefined && config.role === "restore") {
    throw new ConfigError(
      "no-identity",
      `${path} is a restore agent's config but holds no identity, so this agent can open no backup`,
      path,
      `give it the identity file key mode write-only wrote: dbvault-agent setup --role restore --identity FILE --config ${path}`,
    );
  }
  return { masterKey: readKeyring(config, path), identities };
}

/** True when the config seals to a recipient and holds no master key (a write-only agent). */
export function isWriteOnly(config: AgentConfig): boolean {
  return config.recipient !== undefined && config.masterKey === undefined;
}

/** The key ids of what the config opens: the keyring's, then the identities' recipient fingerprints. */
export function openingKeyIds(config: AgentConfig, path: string): string[] {
  const { masterKey, identities } = readOpeningKeys(config, path);
  return [...masterKey.map((key) => deriveKeyId(key)), ...identities.map((identity) => recipientFingerprint(recipientOf(identity)).toString("hex"))];
}

function decodeConfigKey(text: string, what: string, path: string): Buffer {
  try {
    return decodeMasterKey(text);
  } catch (error) {
    const detail = error instanceof InvalidKeyError ? error.message : "it cannot be decoded";
    throw new ConfigError("invalid", `${what} is not valid: ${detail}`, path, "put back the key exactly as dbvault-agent key export printed it");
  }
}

/** What is wrong with one copies entry (never quoting its credentials). */
function copyEntryProblems(entry: unknown, where: string): string[] {
  if (!isObject(entry)) return [`${where} must be an object`];
  const problems: string[] = [];
  if (typeof entry.url !== "string" || !entry.url.startsWith("s3://")) problems.push(`${where}.url must be an s3:// URL`);
  for (const field of ["accessKeyId", "secretAccessKey"]) if (typeof entry[field] !== "string") problems.push(`${where}.${field} must be a string`);
  if (entry.sessionToken !== undefined && typeof entry.sessionToken !== "string") problems.push(`${where}.sessionToken must be a string`);
  if (entry.objectLock !== undefined) {
    const lock = entry.objectLock;
    if (
      !isObject(lock) ||
      (lock.mode !== "compliance" && lock.mode !== "governance") ||
      !Number.isInteger(lock.retainDays) ||
      (lock.retainDays as number) < 1
    ) {
      problems.push(`${where}.objectLock must be {"mode": "compliance" or "governance", "retainDays": a whole number from 1}`);
    }
  }
  return problems;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Returns the server settings `run` and `db add` need; throws ConfigError "not-set-up" when setup has not run. */
export function readServerSettings(config: AgentConfig, path: string): Required<Omit<ServerSettings, "releaseKey">> {
  const server = config.server;
  if (!server?.url || !server.apiKey || !server.agentId || !server.agentToken) {
    throw new ConfigError(
      "not-set-up",
      `the config file ${path} does not say how to reach a DBVault server`,
      path,
      `connect this agent first with: dbvault-agent setup --config ${path}`,
    );
  }
  return { url: server.url, apiKey: server.apiKey, agentId: server.agentId, agentToken: server.agentToken };
}
