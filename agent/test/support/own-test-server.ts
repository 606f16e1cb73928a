// The project's MongoDB test server started for one describe block (its own, even when
// MONGODB_TEST_URI names a real server), with a client for assertions.
import { afterAll, beforeAll } from "bun:test";
import { MongoClient } from "mongodb";
import { type MongoTestServer, startMongoTestServer } from "../../../testkit/mongo-server/index.ts";

export interface OwnTestServer {
  server: MongoTestServer;
  client: MongoClient;
}

/** Starts a test server and connects a client before the enclosing tests, stopping both after; the fields are set once beforeAll ran. */
export function useOwnTestServer(): OwnTestServer {
  const opened = {} as OwnTestServer;
  beforeAll(async () => {
    opened.server = await startMongoTestServer();
    opened.client = await new MongoClient(opened.server.uri).connect();
  });
  afterAll(async () => {
    await opened.client?.close();
    await opened.server?.stop();
  });
  return opened;
}
