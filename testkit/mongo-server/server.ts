// The TCP side: a loopback listener, one message reader per connection, and replies written in
// request order. Commands run synchronously against in-memory state, so each is atomic with
// respect to every other connection without any locking; the few that wait (an awaitData
// getMore, an awaitable hello) hold back their connection's later requests until they answer.
import { X509Certificate } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer, type TLSSocket } from "node:tls";
import { BSON } from "bson";
import type { CommandInterceptor, ConnectionInfo, ServerContext, TestUser } from "./command-context";
import { CursorRegistry } from "./cursors";
import { executeRequest } from "./dispatch";
import { DEFAULT_WRITE_LIMITS, type WriteLimits } from "./limits";
import { ReplicaSet, type ReplicaSetOptions } from "./replica-set/replica-set";
import { startReplicator } from "./replica-set/replicator";
import { ServerState } from "./server-state";
import { encodeOpMsgReply, encodeOpReply, MessageReader, OP_QUERY, parseWireMessage, type WireRequest } from "./wire-protocol";

export type MongoTestServerOptions = {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Address to listen on; default 127.0.0.1 (a test reaching it from another network namespace gives a veth address). */
  listenAddress?: string;
  /**
   * The host name the server gives as its own in hello (`me`, `hosts`, `primary`) instead of the
   * listen address: a replica set found through `mongodb+srv://` names its members by DNS name.
   */
  advertisedHost?: string;
  /** When given, every connection must authenticate with SCRAM-SHA-256 as one of these users. */
  users?: TestUser[];
  /** Whether to create admin.system.version and local.startup_log as a fresh mongod has; default true. */
  seedSystemCollections?: boolean;
  /** The MongoDB version to report and behave as ("major.minor.patch"); default 7.0.14. */
  version?: string;
  /** Smaller message and write batch limits than mongod's, stated in hello and enforced alike. */
  limits?: Partial<WriteLimits>;
  /** Runs as the primary of a one-member replica set with an oplog (`--replSet NAME`). */
  replicaSet?: ReplicaSetOptions;
  /**
   * With `replicaSet` of the same name: runs as the secondary of this primary (a server of this
   * process, which then lists it in hello), copying its oplog (replica-set/replicator.ts).
   * Writes are refused (NotWritablePrimary), and reads need a read preference other than primary.
   * `syncUri` is how it reaches the primary (the primary's `uri`, with credentials if it needs them).
   */
  secondaryOf?: { primary: MongoTestServer; syncUri?: string };
  /**
   * TLS on the listener (mongod's net.tls.mode requireTLS) with this key and certificate. With
   * `ca`, clients must present a certificate that CA signed (net.tls.CAFile): others are refused
   * in the handshake, and MONGODB-X509 authenticates the user `$external` holds under the
   * certificate's subject (TestUser with database "$external").
   */
  tls?: { key: string; cert: string; ca?: string };
  /**
   * The data of a server stopped before (its `state`): a restart after a simulated crash keeps
   * what was written, as a durable server would. `version` and `seedSystemCollections` are then unused.
   */
  state?: ServerState;
};

export type MongoTestServer = {
  uri: string;
  port: number;
  /** "host:port" as hello names this member. */
  host: string;
  /** Read commands served (find, getMore, aggregate, count, distinct, list*, *Stats) by database. */
  readCounts: Map<string, number>;
  /** The in-memory state, for tests that inspect the server directly. */
  state: ServerState;
  cursors: CursorRegistry;
  /** The replica set, when started with `replicaSet`. */
  replicaSet?: ReplicaSet;
  /**
   * Fault injection: `hook` sees every command before it runs and may throw a CommandError (a
   * refused write), stop the server or signal a client; undefined removes it.
   */
  intercept(hook: CommandInterceptor | undefined): void;
  stop(): Promise<void>;
};

let nextReplyId = 1;

/**
 * The body of the next hello in an exhaust stream: the same request, now knowing the topology
 * version the previous reply gave; undefined when the stream ends (not a streamable hello, or
 * a failed one).
 */
function continueHelloStream(request: WireRequest, reply: Buffer): WireRequest | undefined {
  if (!request.exhaustAllowed) return undefined;
  const body = BSON.deserialize(request.body, { promoteValues: false });
  const answer = BSON.deserialize(reply, { promoteValues: false });
  const isHello = ["hello", "isMaster", "ismaster"].includes(Object.keys(body)[0] ?? "");
  if (!isHello || body.topologyVersion === undefined || body.maxAwaitTimeMS === undefined || answer.topologyVersion === undefined) return undefined;
  return { ...request, body: Buffer.from(BSON.serialize({ ...body, topologyVersion: answer.topologyVersion })) };
}

function serveConnection(socket: Socket, server: ServerContext, connection: ConnectionInfo): void {
  const reader = new MessageReader(server.limits.maxMessageSizeBytes);
  const queue: Buffer[] = [];
  let waiting = false;
  socket.setNoDelay(true);

  const send = (request: WireRequest, responseTo: number, body: Buffer, moreToCome: boolean): number => {
    const replyId = nextReplyId++ & 0x7fffffff;
    const encode = request.opCode === OP_QUERY ? encodeOpReply : encodeOpMsgReply;
    if (!socket.destroyed) socket.write(encode(replyId, responseTo, body, moreToCome));
    return replyId;
  };

  // An awaitable hello sent with exhaustAllowed is answered again and again (moreToCome) until
  // the connection closes: the streaming heartbeat drivers use on a replica set.
  const streamHellos = async (request: WireRequest, responseTo: number, body: Buffer): Promise<void> => {
    for (let next = continueHelloStream(request, body); next && !socket.destroyed; ) {
      const replyId = send(request, responseTo, body, true);
      body = await executeRequest(server, connection, next);
      responseTo = replyId;
      request = next;
      next = continueHelloStream(request, body);
    }
    send(request, responseTo, body, false);
  };

  const answer = (request: WireRequest, body: Buffer): void | Promise<void> => {
    if (request.moreToCome) return; // unacknowledged write: the client waits for nothing
    if (request.exhaustAllowed && continueHelloStream(request, body)) return streamHellos(request, request.requestId, body);
    send(request, request.requestId, body, false);
  };

  const drain = (): void => {
    while (!waiting && queue.length > 0 && !socket.destroyed) {
      const request = parseWireMessage(queue.shift()!);
      const body = executeRequest(server, connection, request);
      const done = body instanceof Promise ? body.then((reply) => answer(request, reply)) : answer(request, body);
      if (done instanceof Promise) {
        waiting = true;
        void done.then(() => {
          waiting = false;
          safely(drain);
        });
      }
    }
  };

  const safely = (work: () => void): void => {
    try {
      work();
    } catch (error) {
      // A framing fault leaves the stream unreadable; mongod also just closes the connection.
      console.error(`mongo test server: closing connection ${connection.id}: ${String(error)}`);
      socket.destroy();
    }
  };

  socket.on("data", (chunk: Buffer) =>
    safely(() => {
      queue.push(...reader.pushChunk(chunk));
      drain();
    }),
  );
  socket.on("error", () => socket.destroy());
}

/** A certificate's subject as MongoDB names x509 users: RFC 2253, most specific part first ("CN=a,OU=b,O=c"). */
function describeSubject(certificate: X509Certificate): string {
  return certificate.subject.split("\n").reverse().join(",");
}

/** Starts a test server on 127.0.0.1 (or `listenAddress`) in this process; resolves once it is listening. */
export async function startMongoTestServer(options: MongoTestServerOptions = {}): Promise<MongoTestServer> {
  const state = options.state ?? new ServerState(options.version);
  if (!options.state && options.seedSystemCollections !== false) state.seedSystemCollections();
  const primaryHost = options.secondaryOf?.primary.host;
  if (options.secondaryOf && options.secondaryOf.primary.replicaSet?.name !== options.replicaSet?.name) {
    throw new Error("a secondary needs replicaSet with its primary's set name");
  }
  const replicaSet = options.replicaSet ? new ReplicaSet(state, options.replicaSet, primaryHost ? { primaryHost } : undefined) : undefined;
  const readCounts = new Map<string, number>();
  const cursors = new CursorRegistry();
  const sockets = new Set<Socket>();
  let totalCreated = 0;
  let port = 0;
  const listenAddress = options.listenAddress ?? "127.0.0.1";
  const context: ServerContext = {
    state,
    cursors,
    users: options.users ?? [],
    host: () => `${options.advertisedHost ?? listenAddress}:${port}`,
    connectionStats: () => ({ current: sockets.size, totalCreated }),
    limits: { ...DEFAULT_WRITE_LIMITS, ...options.limits },
    replicaSet,
    readCounts,
  };
  const accept = (socket: Socket) => {
    totalCreated++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    const connection: ConnectionInfo = { id: totalCreated, remoteAddress: `${socket.remoteAddress}:${socket.remotePort}` };
    const peer = options.tls?.ca ? (socket as TLSSocket).getPeerCertificate(false) : undefined;
    if (peer?.raw) connection.peerSubject = describeSubject(new X509Certificate(peer.raw));
    serveConnection(socket, context, connection);
  };
  const { tls } = options;
  const listener: Server = tls
    ? createTlsServer({ key: tls.key, cert: tls.cert, ...(tls.ca ? { ca: tls.ca, requestCert: true, rejectUnauthorized: true } : {}) }, accept)
    : createServer(accept);
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(options.port ?? 0, listenAddress, () => resolve());
  });
  port = (listener.address() as { port: number }).port;
  const sweeper = setInterval(() => cursors.sweepIdleCursors(), 60_000);
  sweeper.unref();
  const host = context.host();
  const { secondaryOf } = options;
  const replicator = secondaryOf && replicaSet ? startReplicator(context, replicaSet, secondaryOf.syncUri ?? secondaryOf.primary.uri) : undefined;
  secondaryOf?.primary.replicaSet?.addMember(host);
  return {
    uri: `mongodb://${listenAddress}:${port}/${tls ? "?tls=true" : ""}`,
    port,
    host,
    readCounts,
    state,
    cursors,
    replicaSet,
    intercept(hook) {
      context.intercept = hook;
    },
    async stop() {
      clearInterval(sweeper);
      secondaryOf?.primary.replicaSet?.removeMember(host);
      await replicator?.stop();
      for (const socket of sockets) socket.destroy();
      replicaSet?.close();
      cursors.endAllForStepDown();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}
