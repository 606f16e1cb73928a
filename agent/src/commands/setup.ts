// dbvault-agent setup: connect this machine to a DBVault account. Tests each database's
// connection, creates the master key (or keeps the one the config already has: replacing it
// would orphan every earlier backup), registers the agent and the database *names* with the
// server, writes the 0600 config, and shows the master key once.
import { decodeIdentity, deriveKeyId, encodeIdentity, encodeMasterKey, generateMasterKey, recipientFingerprint, recipientOf } from "../archive/index.ts";
import { type AgentConfig, ConfigError, type DatabaseEntry, loadConfigOrEmpty, readMasterKey, saveConfig } from "../config.ts";
import { readIdentityFile } from "./master-key.ts";
import { AGENT_VERSION } from "../dump/index.ts";
import { createServerClient } from "../transport/server-client.ts";
import { ServerRefusedError } from "../transport/errors.ts";
import { CliError, EXIT, usageError } from "../cli-error.ts";
import type { CommandContext } from "./context.ts";
import { describeFileProtection, osFamily } from "../platform/locations.ts";
import { parseOptions } from "./parse-args.ts";
import { createPrompter, InputEndedError, type Prompter } from "../ui/prompt.ts";
import { runServiceCommand } from "./service.ts";
import { describeAgentHost, describeServerError, isInsecureServer, normalizeServerUrl, testDatabaseConnection } from "./server-link.ts";
import { CHECK_TIMEOUT_MS, reportOplogAccess } from "./database-check.ts";
import { reportJobRoles } from "./job-roles-check.ts";
import type { RegisterRequest } from "../../../protocol/agent-protocol.ts";
import { API_KEY_ENV, checkOneStdinReader, parseDatabasesText, readApiKey, readSecretFile, readSingleDatabase } from "./setup-inputs.ts";
import { promptDatabases } from "./database-prompt.ts";
import { COMMON_OPTIONS } from "./shared.ts";
import { checkWriteOnlySwitch, isWriteOnly, switchToWriteOnly } from "./key-mode.ts";

const OPTIONS = {
  ...COMMON_OPTIONS,
  server: "string",
  "api-key-file": "string",
  db: "string",
  "uri-file": "string",
  "databases-file": "string",
  name: "string",
  force: "boolean",
  "key-mode": "string",
  "identity-out": "string",
  "keyring-out": "string",
  role: "string",
  identity: "string",
  "setup-code": "string",
} as const;

/** Runs `setup`; returns the exit code or throws what describeFailure reports. */
export async function runSetupCommand(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("setup", args, OPTIONS);
  checkOneStdinReader("setup", options, ["api-key-file", "uri-file", "databases-file"]);
  if (options["databases-file"] !== undefined && (options.db !== undefined || options["uri-file"] !== undefined)) {
    throw usageError("setup: give either --databases-file or --db with --uri-file, not both");
  }
  const keyMode = options["key-mode"] ?? "master-key";
  if (keyMode !== "master-key" && keyMode !== "write-only") throw usageError(`setup: unknown --key-mode "${keyMode}" (expected master-key or write-only)`);
  const role = options.role ?? "backup";
  if (role !== "backup" && role !== "restore") throw usageError(`setup: unknown --role "${role}" (expected backup or restore)`);
  if (role === "restore" && options["key-mode"] !== undefined) {
    throw usageError(
      "setup: --key-mode is for backup agents; a restore agent makes no backups",
      "drop --key-mode, or set up a backup agent without --role restore",
    );
  }
  if (role === "backup" && options.identity !== undefined) {
    throw usageError("setup: --identity goes with --role restore", "a backup agent keeps no identity: restores on it take --identity FILE on the command line");
  }
  const path = context.configPath(options.config);
  const existing = await loadConfigOrEmpty(path);
  const identity = role === "restore" ? await chooseIdentity(options.identity, existing, context) : undefined;
  // Write-only: only a public key stays here (key-mode.ts); a master key already here must be saved first.
  const switchToWriteOnlyNow = keyMode === "write-only" && !isWriteOnly(existing);
  if (switchToWriteOnlyNow) checkWriteOnlySwitch(existing, path, options["keyring-out"]);
  if (existing.server && options.force !== true) {
    throw new ConfigError(
      "already-set-up",
      `the config file ${path} is already connected to ${existing.server.url} (agent ${existing.server.agentId ?? "not registered"})`,
      path,
      "to register this machine again (e.g. after regenerating the API key), pass --force: the master key and databases are kept",
    );
  }
  const prompter = context.io.stdinIsTTY ? createPrompter(context.io.stdin, context.io.stderr) : null;

  const url = await chooseServer(options, context, prompter);
  if (isInsecureServer(url)) context.warn(`${url} is not https: the API key and backups cross the network unprotected by TLS`);
  const apiKey = await chooseApiKey(url, options, context, prompter);
  const { entries: given, tested } = await readDatabases(options, context, prompter, existing.databases);
  const agentName = typeof options.name === "string" ? options.name : describeAgentHost().hostname.slice(0, 100);
  if (agentName.length > 100) throw usageError("setup: --name must be at most 100 characters");

  for (const database of tested ? [] : given) {
    const host = await testDatabaseConnection(database.name, database.uri);
    context.say(`connected to "${database.name}" at ${host}`);
  }
  const pitrAccess: NonNullable<RegisterRequest["pitrAccess"]> = [];
  for (const database of given) {
    const access = await reportOplogAccess(context, database.name, database.uri);
    await reportJobRoles(context, database.name, database.uri, CHECK_TIMEOUT_MS);
    if (access) pitrAccess.push({ database: database.name, access });
  }
  const databases: DatabaseEntry[] = [...existing.databases.filter((old) => !given.some((entry) => entry.name === old.name)), ...given];

  // A restore agent keeps a master key it already had (older backups), and makes none.
  const keepsMasterKey = keyMode === "master-key" && !isWriteOnly(existing) && (role === "backup" || existing.masterKey !== undefined);
  const newKey = keepsMasterKey && existing.masterKey === undefined ? generateMasterKey() : null;
  const masterKey = keepsMasterKey ? (newKey ?? readMasterKey(existing, path)) : null;

  // Set up before on this server: its own credentials let it register as the same agent again
  // (the API key alone does not); without them, a user approves the code the server answers.
  const previous = existing.server?.url === url && existing.server.agentId ? existing.server : undefined;
  const client = createServerClient({
    url,
    apiKey,
    ...(previous?.agentId ? { agentId: previous.agentId } : {}),
    ...(previous?.agentToken ? { agentToken: previous.agentToken } : {}),
  });
  const registered = await client
    // Set up before (--force): the same agent, given new credentials, rather than a second one.
    .register({
      name: agentName,
      ...describeAgentHost(),
      version: AGENT_VERSION,
      databases: databases.map((entry) => entry.name),
      ...(pitrAccess.length > 0 ? { pitrAccess } : {}),
      ...(existing.server?.agentId ? { agentId: existing.server.agentId } : {}),
      ...(typeof options["setup-code"] === "string" ? { setupCode: options["setup-code"] } : {}),
      ...(role === "restore" ? { role } : {}),
    })
    .catch((error) => {
      throw describeServerError(error, `registering with ${url}`);
    });
  const releaseKey = await readReleaseKey(client, context);
  const saved = {
    ...existing,
    ...(masterKey ? { masterKey: encodeMasterKey(masterKey) } : {}),
    ...(identity ? { role: "restore" as const, identities: identity.all } : {}),
    databases,
    server: { url, apiKey, agentId: registered.agentId, agentToken: registered.agentToken, ...(releaseKey ? { releaseKey } : {}) },
  };
  await saveConfig(path, saved);

  const again = existing.server?.agentId === registered.agentId ? " again (its old credentials no longer work)" : "";
  context.say(
    `registered agent "${registered.name ?? agentName}"${again} (id ${registered.agentId}) with ${url}; settings saved in ${path} (${describeFileProtection()})`,
  );
  if (releaseKey)
    context.say(
      `release signing key ${releaseKey}: updates are installed only when this key signed them (Settings → Security in the web app shows the server's)`,
    );
  if (identity) {
    // A restore agent seals nothing: no key to show, no mode to report.
    context.say(
      `this is a restore agent: it opens the backups sealed to the public key ${identity.fingerprint} and runs their verifications, drills and restores; it runs no backup`,
    );
    for (const entry of databases) context.say(`"${entry.name}": its restores and drills run on this machine's connection`);
    context.warn(`${path} now holds the identity: keep it as safe as the identity file itself`);
  } else {
    reportDatabaseStates(context, databases, registered.databases);
    if (switchToWriteOnlyNow) {
      await switchToWriteOnly(saved, path, { identityOut: options["identity-out"], keyringOut: options["keyring-out"] }, context);
    } else if (!masterKey) context.say(`kept write-only mode: ${path} holds only the public key backups are sealed to`);
    else if (newKey) printNewKey(context, newKey);
    else context.say(`kept the master key already in ${path} (key id ${deriveKeyId(masterKey)})`);
  }
  const configArgument = options.config ? ` --config ${path}` : "";
  if (prompter) context.say(describeServiceChoice());
  if (
    prompter &&
    (await prompter.ask(`install the agent as a service that starts by itself (${SERVICE_MANAGER_NAMES[osFamily()]})? [y/N] `)).toLowerCase().startsWith("y")
  ) {
    return runServiceCommand(["install", ...(options.config ? ["--config", path] : [])], context);
  }
  context.say(`start the agent as a service with: dbvault-agent service install${configArgument} (or run it yourself: dbvault-agent run${configArgument})`);
  return 0;
}

/**
 * The identity a restore agent keeps: `--identity FILE` (added to those already in the config),
 * else the config's own (setup again); its recipient fingerprint says which backups it opens.
 */
async function chooseIdentity(file: string | boolean | undefined, existing: AgentConfig, context: CommandContext) {
  const kept = existing.identities ?? [];
  if (typeof file !== "string" && kept.length === 0) {
    throw usageError(
      "setup: a restore agent needs the identity write-only backups are sealed to: --identity FILE",
      "give the file dbvault-agent key mode write-only (or setup --key-mode write-only --identity-out) wrote",
    );
  }
  const identity = typeof file === "string" ? await readIdentityFile(file, context) : decodeIdentity(kept[0]!);
  const text = encodeIdentity(identity);
  return { all: kept.includes(text) ? kept : [...kept, text], fingerprint: recipientFingerprint(recipientOf(identity)).toString("hex") };
}

const SERVICE_MANAGER_NAMES = { linux: "systemd", darwin: "launchd", windows: "a scheduled task" } as const;

/** Questions asked again after a wrong answer, at most this many times in all. */
const ATTEMPTS = 5;

/**
 * The server's URL: from --server (checked at once when the API key is to be typed, else when
 * registering, as scripts expect every input checked first), or asked on a terminal and checked
 * at once, again after an answer that is not a URL or a server that does not answer.
 */
async function chooseServer(options: Record<string, string | boolean | undefined>, context: CommandContext, prompter: Prompter | null): Promise<string> {
  const check = async (url: string) => {
    await createServerClient({ url, apiKey: "" })
      .checkService()
      .catch((error) => {
        throw describeServerError(error, `checking the DBVault server at ${url}`);
      });
    return url;
  };
  if (typeof options.server === "string") {
    const url = normalizeServerUrl("setup", options.server);
    // About to ask for the API key: a wrong address is said now, not after it was typed.
    return apiKeyWillBeAsked(options, context, prompter) ? check(url) : url;
  }
  if (!prompter) throw usageError("setup: missing --server URL", "see dbvault-agent help setup");
  for (let attempt = 1; ; attempt++) {
    const answer = await prompter.ask("DBVault server URL (e.g. https://dbvault.example.com): ");
    try {
      if (!answer) throw usageError("setup: the server URL is needed");
      if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(answer)) {
        throw new CliError(`setup: "${answer}" has no http:// or https://`, EXIT.usage, `did you mean https://${answer}?`);
      }
      return await check(normalizeServerUrl("setup", answer));
    } catch (error) {
      if (!(error instanceof CliError) || error instanceof InputEndedError || attempt >= ATTEMPTS) throw error;
      context.say(error.message.replace(/^setup: /, ""));
      if (error.hint) context.say(`hint: ${error.hint}`);
    }
  }
}

/**
 * The API key. Typed at a terminal, it is checked with the server at once and asked again when
 * refused; from a file or the environment, registration checks it.
 */
async function chooseApiKey(
  url: string,
  options: Record<string, string | boolean | undefined>,
  context: CommandContext,
  prompter: Prompter | null,
): Promise<string> {
  if (!apiKeyWillBeAsked(options, context, prompter)) return readApiKey("setup", options, context, prompter);
  for (let attempt = 1; ; attempt++) {
    const apiKey = await readApiKey("setup", options, context, prompter);
    try {
      const { name } = await createServerClient({ url, apiKey }).checkApiKey();
      context.say(`API key accepted (account: ${name || "unnamed"})`);
      return apiKey;
    } catch (error) {
      const described = describeServerError(error, "checking the API key");
      if (attempt >= ATTEMPTS || !(error instanceof ServerRefusedError && error.status === 401) || !(described instanceof CliError)) throw described;
      context.say("the server does not know this API key");
      context.say("hint: copy it again from Settings → Security in the web app (it changes when regenerated) and paste it below");
    }
  }
}

function apiKeyWillBeAsked(options: Record<string, string | boolean | undefined>, context: CommandContext, prompter: Prompter | null): prompter is Prompter {
  return prompter !== null && typeof options["api-key-file"] !== "string" && !context.io.env[API_KEY_ENV];
}

/** The databases given, and whether their connections were already tested (asked on a terminal: each as it was typed). */
async function readDatabases(
  options: Record<string, string | boolean | undefined>,
  context: CommandContext,
  prompter: Prompter | null,
  existing: DatabaseEntry[],
): Promise<{ entries: DatabaseEntry[]; tested: boolean }> {
  if (typeof options["databases-file"] === "string")
    return { entries: parseDatabasesText("setup", await readSecretFile(options["databases-file"], context)), tested: false };
  if (options.db !== undefined || options["uri-file"] !== undefined || !prompter)
    return { entries: [await readSingleDatabase("setup", options, context, prompter)], tested: false };
  return { entries: await promptDatabases("setup", context, prompter, existing), tested: true };
}

/** What installing a service does, said before the question. */
function describeServiceChoice(): string {
  const manager = SERVICE_MANAGER_NAMES[osFamily()];
  return `backups run only while dbvault-agent run is running: as a service, ${manager} starts it at boot and again if it stops (answer n to start it yourself)`;
}

/**
 * The server's release signing key, pinned from now on: "Check for Updates" installs only what
 * it signed. A server that does not answer it only costs the pin (the first update pins it then).
 */
async function readReleaseKey(client: ReturnType<typeof createServerClient>, context: CommandContext): Promise<string | undefined> {
  try {
    const { publicKey } = await client.releases();
    return /^[A-Za-z0-9+/]{43}=$/.test(publicKey) ? publicKey : undefined;
  } catch (error) {
    context.warn(`could not read the server's release signing key (${(error as Error).message}); the first update will trust the key the server shows then`);
    return undefined;
  }
}

/** Says which databases the server will back up; those past the plan's limit start disabled. */
export function reportDatabaseStates(context: CommandContext, local: DatabaseEntry[], remote: { name: string; isActive: boolean }[]): void {
  for (const entry of local) {
    const state = remote.find((candidate) => candidate.name === entry.name);
    if (state?.isActive) context.say(`"${entry.name}" will be backed up on your schedule`);
    else context.warn(`"${entry.name}" is disabled: your plan's database limit is reached (enable it in Settings → Databases, or upgrade)`);
  }
}

function printNewKey(context: CommandContext, key: Buffer): void {
  context.io.stdout.write(
    [
      `Your master key (key id ${deriveKeyId(key)}):`,
      "",
      `  ${encodeMasterKey(key)}`,
      "",
      "Store a copy of it now, somewhere safe and away from this server (a password manager).",
      "Without it no backup can ever be restored: DBVault never sees it and cannot recover it.",
      "It is shown only this once; on this machine, dbvault-agent key export prints it again.",
      "",
    ].join("\n"),
  );
}
