// DBVault's MongoDB test server: a MongoDB 7.0 stand-in speaking the real wire protocol.
//
// Why it exists: no MongoDB server can be installed on this machine or in CI (neither npm nor
// Debian ships mongod, and mongodb-memory-server's download host is unreachable), yet the agent
// dumps and restores databases with the official driver and its tests need a server to talk to.
// This is a test double for that dump/restore work, not a database: everything lives in memory,
// documents are kept as the exact BSON bytes received and returned unchanged (so every BSON type
// round-trips exactly), and the commands a dump/restore tool and the driver's handshake use answer
// in MongoDB's own shapes, errors included. Known differences from real MongoDB are listed in
// README.md beside this file.
//
// Use `mongoTestTarget()` in integration tests: it starts this server, or returns the real
// server named by MONGODB_TEST_URI so the same tests can run against real MongoDB.
import { readRealServerUri } from "./config";
import { startMongoTestServer } from "./server";

export { startMongoTestServer, type MongoTestServer, type MongoTestServerOptions } from "./server";
export { CommandError } from "./errors";
export type { ReplicaSetOptions } from "./replica-set/replica-set";
export type { CommandInterceptor } from "./command-context";

/** Where integration tests send their MongoDB traffic, and how to release it afterwards. */
export type MongoTestTarget = {
  uri: string;
  /**
   * "real" when MONGODB_TEST_URI named a real server (tests must then use their own database
   * names), "ferretdb" for FerretDB (testkit/mongo-targets.ts).
   */
  kind: "test-server" | "ferretdb" | "real";
  stop(): Promise<void>;
};

/** Starts the test server, or points at the real server MONGODB_TEST_URI names (stop does nothing). */
export async function mongoTestTarget(): Promise<MongoTestTarget> {
  const realUri = readRealServerUri();
  if (realUri) return { uri: realUri, kind: "real", stop: async () => {} };
  const server = await startMongoTestServer();
  return { uri: server.uri, kind: "test-server", stop: () => server.stop() };
}
