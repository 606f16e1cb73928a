// Every real oplog fixture (testkit/fixtures/mongo-oplogs: entries written by real mongod
// servers) replayed into the replica-set test server with the real mongorestore --oplogReplay,
// which applies them through applyOps and createIndexes as it would on mongod; the cases and
// what must hold after each are in oplog-fixture-cases.ts.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BSON, EJSON } from "bson";
import { MongoClient } from "mongodb";
import { findMongoTools } from "../../mongo-tools";
import { startMongoTestServer, type MongoTestServer } from "../server";
import { type Base, type Case, fixtureFiles, jsonTwins, replayCases, type Replayed, transactionCases } from "./oplog-fixture-cases";
import { FIXTURES_MISSING, OPLOG_FIXTURES, runTool } from "./test-support";

const { tools, missing: toolsMissing } = findMongoTools();
const skipReason = OPLOG_FIXTURES === undefined ? FIXTURES_MISSING : toolsMissing;

let open: { server: MongoTestServer; client: MongoClient; dir: string } | undefined;
afterEach(async () => {
  await open?.client.close();
  await open?.server.stop();
  if (open) rmSync(open.dir, { recursive: true, force: true });
  open = undefined;
});

function writeBase(dir: string, base: Base): void {
  mkdirSync(join(dir, base.db), { recursive: true });
  writeFileSync(join(dir, base.db, `${base.collection}.bson`), Buffer.concat(base.documents.map((document) => BSON.serialize(document))));
  const metadata = { indexes: base.indexes, collectionName: base.collection, type: "collection" };
  writeFileSync(join(dir, base.db, `${base.collection}.metadata.json`), EJSON.stringify(metadata, { relaxed: false }));
}

async function replay(item: Case): Promise<Replayed> {
  const server = await startMongoTestServer({ replicaSet: { name: "rs0" } });
  const dir = mkdtempSync(join(tmpdir(), "dbvault-oplog-fixture-"));
  const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 5000 });
  open = { server, client, dir };
  if (item.base) writeBase(dir, item.base);
  writeFileSync(join(dir, "oplog.bson"), item.oplog());
  const run = await runTool(tools!.mongorestore, [`--uri=${server.uri}`, "--oplogReplay", `--dir=${dir}`]);
  expect({ code: run.code, failed: run.stderr.split("\n").filter((line) => /Failed|error/.test(line)) }).toEqual({ code: 0, failed: [] });
  await client.connect();
  return { client };
}

describe.skipIf(skipReason !== null)(
  `real oplog fixtures replayed with the real mongorestore --oplogReplay${skipReason ? ` (skipped: ${skipReason})` : ""}`,
  () => {
    test("every fixture file is covered by a case below", () => {
      const covered = new Set([...replayCases, ...jsonTwins].map((item) => item.name.split(":")[0]));
      expect(fixtureFiles().filter((file) => !covered.has(file))).toEqual([]);
    });

    for (const item of [...replayCases, ...jsonTwins, ...transactionCases()]) {
      test(item.name, async () => item.check(await replay(item)));
    }
  },
);
