// Empty timestamps survive a restore. mongod replaces a top-level Timestamp(0, 0) (but _id's) with
// the current time on insert; the restore tells servers that know it not to
// (bypassEmptyTsReplacement: 8.0+, 7.0.13+, 6.0.17+, 5.0.29+) and, on older ones, inserts such a
// document then replaces it with itself as a literal, as mongorestore does. On every target, and
// on a test server reporting 7.0.0 (which refuses the flag as unknown) for the fallback.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BSON, Timestamp } from "bson";
import { generateMasterKey } from "../src/archive/index.ts";
import { hasReplaceableTimestamp } from "../src/dump/builtin/restored-documents.ts";
import { acceptsBypassEmptyTsReplacement } from "../../protocol/mongodb-features.ts";
import { restoreFromEncrypted } from "../src/dump/index.ts";
import { type MongoTargetSpec, listMongoTargets, testOnTarget } from "../../testkit/mongo-targets.ts";
import { startMongoTestServer } from "../../testkit/mongo-server/index.ts";
import { snapshotDatabase } from "./support/database-snapshot.ts";
import { backUpToBuffer } from "./support/back-up.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./support/test-env.ts";

const EMPTY = new Timestamp({ t: 0, i: 0 });
const masterKey = generateMasterKey();

// Plain documents around the ones with empty timestamps, so the order they come back in shows too.
const DOCUMENTS = [
  { _id: 1, plain: true },
  { _id: 2, at: EMPTY, other: EMPTY, n: 1 },
  { _id: 3, plain: true },
  { _id: EMPTY, note: "an empty timestamp as _id is never replaced" },
  { _id: 5, nested: { at: EMPTY }, list: [EMPTY] },
  { _id: 6, at: EMPTY },
];

test("a document needs keeping when a top-level field but _id holds Timestamp(0, 0)", () => {
  expect(DOCUMENTS.map((document) => hasReplaceableTimestamp(BSON.serialize(document)))).toEqual([false, true, false, false, false, true]);
  expect(hasReplaceableTimestamp(BSON.serialize({ _id: 1, at: new Timestamp({ t: 0, i: 1 }) }))).toBe(false);
});

/** Writes DOCUMENTS with their empty timestamps intact (the insert says so, or a 7.0.0 test server's state takes them as given). */
async function seed(env: AgentTestEnv, database: string): Promise<void> {
  const db = env.client.db(database);
  const version = String((await db.admin().command({ buildInfo: 1 })).version);
  if (acceptsBypassEmptyTsReplacement(version)) {
    await db.command({ insert: "stamped", documents: DOCUMENTS, bypassEmptyTsReplacement: true });
  } else {
    for (const document of DOCUMENTS) {
      await db.collection("stamped").insertOne(document as never);
      await db.collection("stamped").updateOne({ _id: document._id } as never, [{ $replaceRoot: { newRoot: { $literal: document } } }]);
    }
  }
}

async function backUpAndRestore(env: AgentTestEnv, from: string, into: string): Promise<void> {
  const { file } = await backUpToBuffer({ uri: env.uriFor(from), masterKey, tools: { mode: "builtin" } });
  await restoreFromEncrypted({ uri: env.uriFor(into), masterKey, input: [file], tools: { mode: "builtin" } });
}

function describeRoundTrip(title: string, spec: MongoTargetSpec): void {
  describe(title, () => {
    let env: AgentTestEnv;
    beforeAll(async () => {
      if (spec.unavailable === null) env = await openAgentTestEnv(spec);
    });
    afterAll(() => env?.close());

    testOnTarget(spec, [], "documents with empty timestamps come back byte for byte, in their order", async () => {
      const source = env.uniqueDatabase("ts_src");
      const copy = env.uniqueDatabase("ts_copy");
      await seed(env, source);
      const original = await snapshotDatabase(env.client.db(source));
      expect(original[0]!.documents[1]!.equals(Buffer.from(BSON.serialize(DOCUMENTS[1]!)))).toBe(true);
      await backUpAndRestore(env, source, copy);
      expect(await snapshotDatabase(env.client.db(copy))).toEqual(original);
    });
  });
}

for (const target of listMongoTargets()) describeRoundTrip(`on ${target.name}`, target);

// A 7.0.0 server refuses bypassEmptyTsReplacement, so this exercises the insert-then-repair path.
describeRoundTrip("on a test server reporting 7.0.0", {
  name: "test-server",
  unavailable: null,
  lacks: {},
  async start() {
    const server = await startMongoTestServer({ version: "7.0.0" });
    return { uri: server.uri, kind: "test-server", stop: () => server.stop() };
  },
});
