// Shared setup for the integration tests: one target (this server, or a real MongoDB when
// MONGODB_TEST_URI is set) and database names unique to each test, so the same tests can run
// against a real server that other data lives on.
import { randomBytes } from "node:crypto";
import type { Double, Int32, Long, ObjectId } from "bson";
import { MongoClient, type MongoClientOptions } from "mongodb";
import { mongoTestTarget, type MongoTestTarget } from "./index";

/** Documents of any shape whose `_id` may be any of the types the tests use, not only ObjectId. */
export type LooseDocument = { _id?: string | number | ObjectId | Int32 | Double | Long; [field: string]: any };

export type TestConnection = { target: MongoTestTarget; client: MongoClient; close(): Promise<void> };

/** Starts (or points at) a server and connects one client to it. */
export async function openTestConnection(options: MongoClientOptions = {}): Promise<TestConnection> {
  const target = await mongoTestTarget();
  const client = await new MongoClient(target.uri, { serverSelectionTimeoutMS: 5000, ...options }).connect();
  return {
    target,
    client,
    async close() {
      await client.close();
      await target.stop();
    },
  };
}

/** A database name no other test (or earlier run) uses. */
export function createDatabaseName(label: string): string {
  return `t_${label}_${randomBytes(4).toString("hex")}`;
}
