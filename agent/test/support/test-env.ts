// Shared setup of the agent's integration tests: a MongoDB target (one of testkit's targets, or
// by default the test server, or a real server when MONGODB_TEST_URI is set), unique database
// names, a master key, temp directories.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { mongoTestTarget, type MongoTestTarget } from "../../../testkit/mongo-server/index.ts";
import type { MongoTargetSpec } from "../../../testkit/mongo-targets.ts";

export interface AgentTestEnv {
  target: MongoTestTarget;
  client: MongoClient;
  /** The target's URI with `database` as its path. */
  uriFor(database: string): string;
  /** A database name no other test or run uses. */
  uniqueDatabase(label: string): string;
  /** A fresh private directory, removed by close(). */
  makeTempDir(): Promise<string>;
  close(): Promise<void>;
}

/** Starts (or points at) a MongoDB server, `spec`'s or the default one, and connects a client for assertions. */
export async function openAgentTestEnv(spec?: MongoTargetSpec): Promise<AgentTestEnv> {
  const target = spec ? await spec.start() : await mongoTestTarget();
  const client = await new MongoClient(target.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  const directories: string[] = [];
  const created: string[] = [];
  return {
    target,
    client,
    uriFor(database) {
      const [base, query] = target.uri.split("?");
      return `${base!.replace(/\/[^/]*$/, "")}/${database}${query ? `?${query}` : ""}`;
    },
    uniqueDatabase(label) {
      const name = `agent_${label}_${randomBytes(4).toString("hex")}`;
      created.push(name);
      return name;
    },
    async makeTempDir() {
      const directory = await mkdtemp(join(tmpdir(), "dbvault-agent-test-"));
      directories.push(directory);
      return directory;
    },
    async close() {
      for (const name of created)
        await client
          .db(name)
          .dropDatabase()
          .catch(() => undefined);
      await client.close();
      await target.stop();
      for (const directory of directories) await rm(directory, { recursive: true, force: true });
    },
  };
}
