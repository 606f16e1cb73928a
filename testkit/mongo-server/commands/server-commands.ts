// Handshake and server-level commands: what the driver sends while connecting and monitoring
// (isMaster/hello, ping, endSessions) and the descriptive commands tools ask before working.
import { Long, UUID } from "bson";
import type { CommandContext, CommandHandler, Document } from "../command-context";
import { CommandError } from "../errors";
import { MAX_BSON_OBJECT_SIZE, MAX_WIRE_VERSION } from "../limits";
import { describeFeatureCompatibility, parseVersion } from "../server-version";
import { AUTH_SCHEMA_VERSION } from "./user-commands";
import { describePrivileges } from "../builtin-roles";
import { awaitTopologyChange, describeMember } from "../replica-set/replica-set-commands";

const LOGICAL_SESSION_TIMEOUT_MINUTES = 30;

function describeSaslMechanisms(context: CommandContext): Document {
  const requested = context.body.saslSupportedMechs;
  if (typeof requested !== "string" || context.users.length === 0) return {};
  const known = context.users.some((user) => `${user.database ?? "admin"}.${user.username}` === requested);
  return known ? { saslSupportedMechs: ["SCRAM-SHA-1", "SCRAM-SHA-256"] } : {};
}

// A standalone server reports no topologyVersion, so drivers poll it with plain hellos. A
// replica-set member reports one, and drivers then stream awaitable hellos over exhaust replies
// (server.ts), which wait here until the topology changes or maxAwaitTimeMS passes.
function answerHello(context: CommandContext): Document | Promise<Document> {
  const waiting = awaitTopologyChange(context);
  return waiting ? waiting.then(() => describeHello(context)) : describeHello(context);
}

function describeHello(context: CommandContext): Document {
  const legacyName = context.name !== "hello";
  const member = context.replicaSet ? describeMember(context.replicaSet, context.host()) : undefined;
  return {
    ...(context.body.helloOk === true ? { helloOk: true } : {}),
    ...member?.identity,
    [legacyName ? "ismaster" : "isWritablePrimary"]: context.replicaSet?.isPrimary ?? true,
    ...member?.position,
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    maxMessageSizeBytes: context.limits.maxMessageSizeBytes,
    maxWriteBatchSize: context.limits.maxWriteBatchSize,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: LOGICAL_SESSION_TIMEOUT_MINUTES,
    connectionId: context.connection.id,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ...describeSaslMechanisms(context),
  };
}

function answerBuildInfo(context: CommandContext): Document {
  const version = context.state.version;
  return {
    version,
    // Names the test double so logs and bug reports never mistake it for a real mongod.
    gitVersion: "dbvault-mongo-test-server",
    modules: [],
    allocator: "system",
    javascriptEngine: "none",
    sysInfo: "deprecated",
    versionArray: [...parseVersion(version), 0],
    bits: 64,
    debug: false,
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    storageEngines: ["wiredTiger"],
  };
}

function answerGetParameter(context: CommandContext): Document {
  const known: Document = {
    featureCompatibilityVersion: { version: describeFeatureCompatibility(context.state.version) },
    authenticationMechanisms: ["SCRAM-SHA-1", "SCRAM-SHA-256"],
    authSchemaVersion: AUTH_SCHEMA_VERSION,
  };
  if (context.body.getParameter === "*") return known;
  const wanted = Object.keys(context.body).filter((key) => key in known);
  if (wanted.length === 0) throw new CommandError(72, "no option found to get");
  return Object.fromEntries(wanted.map((key) => [key, known[key]]));
}

function answerServerStatus(context: CommandContext): Document {
  const uptimeMillis = Date.now() - context.state.startedAt.getTime();
  const connections = context.connectionStats();
  return {
    host: context.host(),
    version: context.state.version,
    process: "mongod",
    pid: Long.fromNumber(process.pid),
    uptime: uptimeMillis / 1000,
    uptimeMillis: Long.fromNumber(uptimeMillis),
    uptimeEstimate: Long.fromNumber(Math.floor(uptimeMillis / 1000)),
    localTime: new Date(),
    connections: { current: connections.current, available: 1_000_000 - connections.current, totalCreated: connections.totalCreated },
    storageEngine: { name: "wiredTiger", supportsCommittedReads: true, persistent: false },
  };
}

// The authenticated user's roles (a user configured without roles holds root) and, with
// showPrivileges, what they grant; without authentication, nothing, as on mongod.
function answerConnectionStatus(context: CommandContext): Document {
  const user = context.connection.authenticatedUser;
  const known = user ? context.users.find((candidate) => candidate.username === user.user && (candidate.database ?? "admin") === user.db) : undefined;
  const roles = known ? (known.roles ?? [{ role: "root", db: "admin" }]) : [];
  const privileges = context.body.showPrivileges === true ? { authenticatedUserPrivileges: describePrivileges(roles) } : {};
  return { authInfo: { authenticatedUsers: user ? [user] : [], authenticatedUserRoles: roles, ...privileges } };
}

const answerNothing: CommandHandler = () => ({});

function requireTransaction(context: CommandContext): NonNullable<CommandContext["transaction"]> {
  if (!context.replicaSet) throw new CommandError(20, "Transaction numbers are only allowed on a replica set member or mongos");
  if (!context.transaction) throw new CommandError(251, "no transaction in progress on this session", { errorLabels: ["TransientTransactionError"] });
  return context.transaction;
}

function commitTransaction(context: CommandContext): Document {
  context.replicaSet?.transactions.commit(requireTransaction(context));
  return {};
}

function abortTransaction(context: CommandContext): Document {
  requireTransaction(context).abort();
  return {};
}

export const serverCommands: Record<string, CommandHandler> = {
  hello: answerHello,
  isMaster: answerHello,
  ismaster: answerHello,
  ping: answerNothing,
  buildInfo: answerBuildInfo,
  buildinfo: answerBuildInfo,
  getParameter: answerGetParameter,
  getCmdLineOpts: (context) => ({ argv: ["mongod"], parsed: { net: { bindIp: context.host().split(":")[0] } } }),
  serverStatus: answerServerStatus,
  whatsmyuri: (context) => ({ you: context.connection.remoteAddress }),
  connectionStatus: answerConnectionStatus,
  // Session ids (lsid) are accepted on every command and otherwise ignored.
  startSession: () => ({ id: { id: new UUID() }, timeoutMinutes: LOGICAL_SESSION_TIMEOUT_MINUTES }),
  endSessions: answerNothing,
  killSessions: answerNothing,
  killAllSessions: answerNothing,
  killAllSessionsByPattern: answerNothing,
  refreshSessions: answerNothing,
  commitTransaction,
  abortTransaction,
};
