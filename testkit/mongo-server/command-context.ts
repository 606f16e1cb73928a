// What every command handler receives, and the helpers they share for answering with documents.
import { BSON } from "bson";
import type { CursorRegistry } from "./cursors";
import type { WriteLimits } from "./limits";
import type { ReplicaSet } from "./replica-set/replica-set";
import type { Transaction } from "./replica-set/transactions";
import type { ServerState } from "./server-state";

export type Document = Record<string, unknown>;

/** A user the server accepts with SCRAM-SHA-256 (when any are configured, auth is required). */
export type TestUser = {
  username: string;
  password: string;
  database?: string;
  /** Built-in roles the user holds, as connectionStatus reports them; without it, root's. */
  roles?: RoleName[];
};

/** A role granted in a database, as mongod names it. */
export type RoleName = { role: string; db: string };

/** Per-connection facts: the id hello reports, the peer, and who has authenticated. */
export type ConnectionInfo = {
  id: number;
  remoteAddress: string;
  authenticatedUser?: { user: string; db: string };
  scram?: unknown;
  /** The subject of the client certificate the TLS handshake verified (RFC 2253), when the server asks for one. */
  peerSubject?: string;
};

/** Server-wide facts handlers report (serverStatus, hello) and state they act on. */
export type ServerContext = {
  state: ServerState;
  cursors: CursorRegistry;
  users: TestUser[];
  host: () => string;
  connectionStats: () => { current: number; totalCreated: number };
  /** Stated in hello and enforced: messages over maxMessageSizeBytes close the connection. */
  limits: WriteLimits;
  /** Set when the server runs as a replica set (`--replSet`). */
  replicaSet?: ReplicaSet;
  /** Fault injection for tests: sees each command before it runs and may throw a CommandError. */
  intercept?: CommandInterceptor;
  /** Read commands (find, getMore, aggregate, listCollections, ...) served, by database. */
  readCounts: Map<string, number>;
};

/** Called with each command's name, database and body; throwing a CommandError refuses it. */
export type CommandInterceptor = (command: { name: string; db: string; body: Document }) => void;

export type CommandContext = ServerContext & {
  /** The database the command runs against (`$db`, or the OP_QUERY namespace). */
  db: string;
  /** The command name as sent (its first field). */
  name: string;
  /** The body, deserialized with promoteValues: false so option values keep their BSON types. */
  body: Document;
  rawBody: Buffer;
  sequences: Map<string, Buffer[]>;
  connection: ConnectionInfo;
  /** The multi-document transaction the command runs in (replica-set mode, `autocommit: false`). */
  transaction?: Transaction;
};

/** Reply fields without `ok`, which the dispatcher adds; values may be `RawDocuments`. */
export type CommandReply = Document;
/** Handlers answer at once; only commands that wait (awaitData getMore, awaitable hello) return a promise. */
export type CommandHandler = (context: CommandContext) => CommandReply | Promise<CommandReply>;

/** Encodes documents built by a handler (not stored ones) so they can travel in a cursor batch. */
export function serializeAll(documents: Document[]): Uint8Array[] {
  return documents.map((document) => BSON.serialize(document));
}
