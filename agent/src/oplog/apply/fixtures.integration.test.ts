// Every real oplog fixture (testkit/fixtures/mongo-oplogs: entries written by real mongod
// servers) applied by the agent's applier to the replica-set test server, each source collection
// into a restore's staging collection: what must hold afterwards is the fixture's own (the
// transaction cases' postimages, and what mongo-tools' tests assert), checked on the staging
// collections. The same cases are replayed with the real mongorestore in testkit.
import { afterEach, describe, expect, test } from "bun:test";
import type { MongoClient } from "mongodb";
import {
  type Case,
  fixtureFiles,
  type Replayed,
  jsonTwins,
  replayCases,
  transactionCases,
} from "../../../../testkit/mongo-server/replica-set/oplog-fixture-cases.ts";
import {
  FIXTURES_MISSING,
  OPLOG_FIXTURES,
  splitBsonFile,
  startReplicaSetWithClient,
  stopWithClient,
} from "../../../../testkit/mongo-server/replica-set/test-support.ts";
import type { MongoTestServer } from "../../../../testkit/mongo-server/server.ts";
import { createStagingArea } from "../../dump/builtin/staging.ts";
import { applyOplog } from "./index.ts";

let open: { server: MongoTestServer; client: MongoClient } | undefined;
afterEach(async () => {
  if (open) await stopWithClient(open);
  open = undefined;
});

const staging = createStagingArea("fx0001");

/** Writes the case's dump into its staging collection: options, indexes, documents. */
async function stageBase(client: MongoClient, item: Case): Promise<string[]> {
  const base = item.base;
  if (!base) return [];
  const staged = staging.locate(base.db, base.collection);
  const db = client.db(staged.db);
  await db.createCollection(staged.name);
  const indexes = base.indexes.filter((index) => index.name !== "_id_");
  if (indexes.length > 0) await db.command({ createIndexes: staged.name, indexes });
  if (base.documents.length > 0) await db.collection(staged.name).insertMany(base.documents.map((document) => ({ ...document })));
  return [base.collection];
}

/**
 * collMod_indexUniqueness turns each index to prepareUnique, unique, then forceNonUnique. The
 * real mongorestore ends with prepareUnique on every index because its own index catalog keeps
 * that option through the change to unique; a server applying the entries (mongod, the test
 * server) drops prepareUnique when the index becomes unique. What both agree on is checked:
 * the five indexes, none unique, each with the options it was built with.
 */
async function checkUniquenessChanges({ client, where }: Replayed): Promise<void> {
  const staged = where!("mongodump_test_db", "coll1");
  const indexes = await client.db(staged.db).collection(staged.name).listIndexes().toArray();
  const options = indexes.map(({ name, unique, hidden, expireAfterSeconds }) => ({ name, unique, hidden, expireAfterSeconds }));
  expect(options).toEqual([
    { name: "_id_", unique: undefined, hidden: undefined, expireAfterSeconds: undefined },
    { name: "a_1", unique: undefined, hidden: undefined, expireAfterSeconds: undefined },
    { name: "b_1", unique: undefined, hidden: true, expireAfterSeconds: undefined },
    { name: "c_1", unique: undefined, hidden: undefined, expireAfterSeconds: 100000 },
    { name: "d_1", unique: undefined, hidden: true, expireAfterSeconds: 100000 },
  ]);
}

async function applyCase(item: Case): Promise<MongoClient> {
  open = await startReplicaSetWithClient();
  const { client } = open;
  const collections = await stageBase(client, item);
  await applyOplog({
    client,
    entries: splitBsonFile(item.oplog()),
    sourceDb: item.db,
    mapping: { locate: (collection) => staging.locate(item.db, collection) },
    collections,
  });
  return client;
}

describe.skipIf(OPLOG_FIXTURES === undefined)(
  `the real oplog fixtures applied into staging collections${OPLOG_FIXTURES ? "" : ` (skipped: ${FIXTURES_MISSING})`}`,
  () => {
    test("every fixture file is covered by a case", () => {
      const covered = new Set([...replayCases, ...jsonTwins].map((item) => item.name.split(":")[0]));
      expect(fixtureFiles().filter((file) => !covered.has(file))).toEqual([]);
    });

    for (const item of [...replayCases, ...jsonTwins, ...transactionCases()]) {
      const check = item.name.startsWith("oplogs/bson/collMod_indexUniqueness.bson") ? checkUniquenessChanges : item.check;
      test(item.name, async () => {
        const client = await applyCase(item);
        await check({ client, where: (db, collection) => staging.locate(db, collection) });
        // Nothing was written under the source names.
        const names = (await client.db(item.db).listCollections({}, { nameOnly: true }).toArray()).map((info) => info.name);
        expect(names.filter((name) => !name.startsWith("system.") && !name.endsWith(`.dbvault-restore-${staging.id}`))).toEqual([]);
      });
    }
  },
);
