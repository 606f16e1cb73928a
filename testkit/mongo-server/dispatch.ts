// Turns one wire request into one reply body: finds the database and command, applies the
// checks mongod applies to every command (auth, transactions, legacy opcodes), runs the handler
// and wraps the result as `{ ...fields, ok: 1 }` or MongoDB's error shape.
import { BSON, BSONError, Double } from "bson";
import { isDocument } from "./bson-order";
import type { CommandContext, CommandHandler, ConnectionInfo, Document, ServerContext } from "./command-context";
import { authCommands } from "./commands/auth-commands";
import { databaseCommands } from "./commands/database-commands";
import { indexCommands } from "./commands/index-commands";
import { readCommands } from "./commands/read-commands";
import { serverCommands } from "./commands/server-commands";
import { describeSessionFields } from "./replica-set/write-log";
import { userCommands } from "./commands/user-commands";
import { writeCommands } from "./commands/write-commands";
import { createApplyOps } from "./replica-set/apply-ops";
import { assertReadable, assertWritable, isReadCommand, replicaSetCommands } from "./replica-set/replica-set-commands";
import { CommandError } from "./errors";
import { MAX_MESSAGE_SIZE_BYTES } from "./limits";
import { composeDocument, RawDocuments } from "./raw-bson";
import { assertDatabaseName } from "./server-state";
import { OP_QUERY, type WireRequest } from "./wire-protocol";

const handlers: Record<string, CommandHandler> = {
  ...serverCommands,
  ...databaseCommands,
  ...indexCommands,
  ...readCommands,
  ...writeCommands,
  ...authCommands,
  ...userCommands,
  ...replicaSetCommands,
  applyOps: createApplyOps((name) => (Object.hasOwn(handlers, name) ? handlers[name] : undefined)),
};

const HANDSHAKE_COMMANDS = new Set(["hello", "isMaster", "ismaster"]);
// What mongod lets an unauthenticated connection run when access control is on.
const OPEN_COMMANDS = new Set([
  ...HANDSHAKE_COMMANDS,
  "ping",
  "buildInfo",
  "buildinfo",
  "authenticate",
  "saslStart",
  "saslContinue",
  "logout",
  "endSessions",
  "whatsmyuri",
  "connectionStatus",
]);

function parseBody(raw: Buffer): Document {
  return BSON.deserialize(raw, { promoteValues: false, bsonRegExp: true, validation: { utf8: false } });
}

function locateCommand(request: WireRequest): { db: string; body: Document } {
  let body = parseBody(request.body);
  if (request.opCode === OP_QUERY) {
    const namespace = request.fullCollectionName ?? "";
    if (isDocument(body.$query)) body = body.$query;
    const name = Object.keys(body)[0] ?? "";
    // MongoDB 6.0 and later answer only the handshake over the legacy opcode.
    if (!namespace.endsWith(".$cmd") || !HANDSHAKE_COMMANDS.has(name)) {
      throw new CommandError(352, `Unsupported OP_QUERY command: ${name}. The client driver may require an upgrade.`);
    }
    return { db: namespace.slice(0, -".$cmd".length), body };
  }
  if (typeof body.$db !== "string") throw new CommandError(40571, "OP_MSG requests require a $db argument");
  return { db: body.$db, body };
}

function applyCommonChecks(name: string, context: CommandContext): void {
  const { body, connection, users } = context;
  const inTransaction = body.startTransaction !== undefined || body.autocommit !== undefined;
  if (!context.replicaSet && (body.txnNumber !== undefined || inTransaction)) {
    throw new CommandError(20, "Transaction numbers are only allowed on a replica set member or mongos");
  }
  if (users.length > 0 && !connection.authenticatedUser && !OPEN_COMMANDS.has(name)) {
    throw new CommandError(13, `Command ${name} requires authentication`);
  }
  // $external holds no data: it only names where x509 (and LDAP, Kerberos) users live.
  if (!(name === "authenticate" && context.db === "$external")) assertDatabaseName(context.db);
  assertWritable(context, name);
  assertReadable(context, name);
  // A replica set takes retryable writes (txnNumber alone) and transactions (autocommit: false).
  if (context.replicaSet && inTransaction) context.transaction = context.replicaSet.transactions.enter(context, name, describeSessionFields(context));
}

/** Runs a command in a transaction: a failed command or a write error aborts it, as on mongod. */
function runInTransaction(handler: CommandHandler, context: CommandContext): Document | Promise<Document> {
  const transaction = context.transaction!;
  try {
    const reply = handler(context);
    if (!(reply instanceof Promise) && Array.isArray(reply.writeErrors) && reply.writeErrors.length > 0) transaction.abort();
    return reply;
  } catch (error) {
    transaction.abort();
    throw error;
  }
}

function runRequest(server: ServerContext, connection: ConnectionInfo, request: WireRequest): Document | Promise<Document> {
  const { db, body } = locateCommand(request);
  const name = Object.keys(body)[0] ?? "";
  const handler = Object.hasOwn(handlers, name) ? handlers[name] : undefined;
  if (!handler) throw new CommandError(59, `no such command: '${name}'`);
  const context: CommandContext = {
    ...server,
    db,
    name,
    body,
    rawBody: request.body,
    sequences: request.sequences,
    connection,
  };
  applyCommonChecks(name, context);
  if (isReadCommand(name)) server.readCounts.set(db, (server.readCounts.get(db) ?? 0) + 1);
  server.intercept?.({ name, db, body });
  return context.transaction ? runInTransaction(handler, context) : handler(context);
}

/**
 * Applies one entry of the primary's oplog on a secondary, as its applier does: through applyOps,
 * with nothing logged (the caller keeps the entry itself in this member's oplog).
 */
export function applyReplicatedEntry(server: ServerContext, raw: Buffer): void {
  const context: CommandContext = {
    ...server,
    replicaSet: undefined,
    db: "admin",
    name: "applyOps",
    body: {},
    rawBody: composeDocument({ applyOps: new RawDocuments([raw]) }),
    sequences: new Map(),
    connection: { id: 0, remoteAddress: "replication" },
  };
  void handlers.applyOps!(context);
}

/** Encodes an error the way mongod does: `{ ok: 0, errmsg, code, codeName, ...extra }`. */
export function encodeError(error: CommandError): Buffer {
  return composeDocument({ ok: new Double(0), errmsg: error.message, code: error.code, codeName: error.codeName, ...error.details });
}

function encodeReply(fields: Document): Buffer {
  const reply = composeDocument({ ...fields, ok: new Double(1) });
  // Cursor batches are already bounded; this catches any other reply that grew too large.
  if (reply.length > MAX_MESSAGE_SIZE_BYTES - 1024) {
    return encodeError(new CommandError(10334, `BSONObj size: ${reply.length} is invalid. Size must be between 0 and ${MAX_MESSAGE_SIZE_BYTES}`));
  }
  return reply;
}

/**
 * Runs one request and returns the encoded reply body; never throws for command failures. The
 * reply is a promise only for commands that wait (awaitData getMore, awaitable hello).
 */
export function executeRequest(server: ServerContext, connection: ConnectionInfo, request: WireRequest): Buffer | Promise<Buffer> {
  try {
    const fields = runRequest(server, connection, request);
    if (fields instanceof Promise) return fields.then(encodeReply, encodeFailure);
    return encodeReply(fields);
  } catch (error) {
    return encodeFailure(error);
  }
}

function encodeFailure(error: unknown): Buffer {
  if (error instanceof CommandError) return encodeError(error);
  if (error instanceof BSONError) return encodeError(new CommandError(22, `invalid BSON: ${error.message}`));
  // A fault in the test server itself: report it to the client and the test output alike.
  console.error("mongo test server: internal error", error);
  return encodeError(new CommandError(1, `internal error in the DBVault test server: ${String(error)}`));
}
