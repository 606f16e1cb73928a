// The TCP side: a loopback listener, one message reader per connection, and replies written in
// request order. Commands run synchronously against in-memory state, so each is atomic with
// respect to every other connection without any locking.
import { createServer, type Server, type Socket } from "node:net";
import type { CommandInterceptor, ConnectionInfo, ServerContext, TestUser } from "./command-context";
import { CursorRegistry } from "./cursors";
import { executeRequest } from "./dispatch";
import { ServerState } from "./server-state";
import { encodeOpMsgReply, encodeOpReply, MessageReader, OP_QUERY, parseWireMessage } from "./wire-protocol";

export type MongoTestServerOptions = {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** When given, every connection must authenticate with SCRAM-SHA-256 as one of these users. */
  users?: TestUser[];
  /** Whether to create admin.system.version and local.startup_log as a fresh mongod has; default true. */
  seedSystemCollections?: boolean;
  /** The MongoDB version to report and behave as ("major.minor.patch"); default 7.0.14. */
  version?: string;
  /**
   * The data of a server stopped before (its `state`): a restart after a simulated crash keeps
   * what was written, as a durable server would. `version` and `seedSystemCollections` are then unused.
   */
  state?: ServerState;
};

export type MongoTestServer = {
  uri: string;
  port: number;
  /** The in-memory state, for tests that inspect the server directly. */
  state: ServerState;
  cursors: CursorRegistry;
  /**
   * Fault injection: `hook` sees every command before it runs and may throw a CommandError (a
   * refused write), stop the server or signal a client; undefined removes it.
   */
  intercept(hook: CommandInterceptor | undefined): void;
  stop(): Promise<void>;
};

let nextReplyId = 1;

function serveConnection(socket: Socket, server: ServerContext, connection: ConnectionInfo): void {
  const reader = new MessageReader();
  socket.setNoDelay(true);
  socket.on("data", (chunk: Buffer) => {
    try {
      for (const message of reader.pushChunk(chunk)) {
        const request = parseWireMessage(message);
        const body = executeRequest(server, connection, request);
        if (request.moreToCome) continue; // unacknowledged write: the client waits for nothing
        const replyId = nextReplyId++ & 0x7fffffff;
        const encode = request.opCode === OP_QUERY ? encodeOpReply : encodeOpMsgReply;
        socket.write(encode(replyId, request.requestId, body));
      }
    } catch (error) {
      // A framing fault leaves the stream unreadable; mongod also just closes the connection.
      console.error(`mongo test server: closing connection ${connection.id}: ${String(error)}`);
      socket.destroy();
    }
  });
  socket.on("error", () => socket.destroy());
}

/** Starts a test server on 127.0.0.1 in this process; resolves once it is listening. */
export async function startMongoTestServer(options: MongoTestServerOptions = {}): Promise<MongoTestServer> {
  const state = options.state ?? new ServerState(options.version);
  if (!options.state && options.seedSystemCollections !== false) state.seedSystemCollections();
  const cursors = new CursorRegistry();
  const sockets = new Set<Socket>();
  let totalCreated = 0;
  let port = 0;
  const context: ServerContext = {
    state,
    cursors,
    users: options.users ?? [],
    host: () => `127.0.0.1:${port}`,
    connectionStats: () => ({ current: sockets.size, totalCreated }),
  };
  const listener: Server = createServer((socket) => {
    totalCreated++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    const connection: ConnectionInfo = { id: totalCreated, remoteAddress: `${socket.remoteAddress}:${socket.remotePort}` };
    serveConnection(socket, context, connection);
  });
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  port = (listener.address() as { port: number }).port;
  const sweeper = setInterval(() => cursors.sweepIdleCursors(), 60_000);
  sweeper.unref();
  return {
    uri: `mongodb://127.0.0.1:${port}/`,
    port,
    state,
    cursors,
    intercept(hook) {
      context.intercept = hook;
    },
    async stop() {
      clearInterval(sweeper);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}
