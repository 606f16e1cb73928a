// A backup holding field names that start with "$" or contain dots (MongoDB 5.0+ stores them),
// restored into FerretDB 1.x (issue 46, the checks it lists): FerretDB refuses such a document,
// and the restore says so, naming the field and FerretDB's rule; as the insert happens in
// staging, nothing of the target database changed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import { MongoClient } from "mongodb";
import { generateMasterKey } from "../src/archive/index.ts";
import { restoreFromEncrypted } from "../src/dump/index.ts";
import { type FerretDbServer, findFerretDb, startFerretDb } from "../../testkit/ferretdb.ts";
import { backUpToBuffer } from "./support/back-up.ts";
import { type CollectionSnapshot, snapshotDatabase } from "./support/database-snapshot.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./support/test-env.ts";

const { missing } = findFerretDb();
const masterKey = generateMasterKey();

let env: AgentTestEnv;
let ferretdb: FerretDbServer;
let client: MongoClient;
const ferretUri = (database: string) => ferretdb.uri.replace(/\/[^/?]*(\?|$)/, `/${database}$1`);

describe.skipIf(missing !== null)(`restoring "$" and dotted field names into FerretDB${missing ? ` [skipped: ${missing}]` : ""}`, () => {
  beforeAll(async () => {
    env = await openAgentTestEnv();
    ferretdb = await startFerretDb();
    client = await new MongoClient(ferretdb.uri).connect();
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await ferretdb?.stop();
    await env?.close();
  });

  for (const [what, document, refusal] of [
    ["a dotted field name", { _id: 1, "price.eur": 10 }, `invalid key: "price.eur" (key must not contain '.' sign)`],
    ["a field name starting with $", { _id: 1, nested: { $note: "kept" } }, `invalid key: "$note" (key must not start with '$' sign)`],
  ] as const) {
    test(`${what}: refused saying why, the target untouched`, async () => {
      const source = env.uniqueDatabase("fieldnames");
      await env.client
        .db(source)
        .collection("orders")
        .insertMany([{ _id: 0, plain: true }, document] as never[]);
      const { file } = await backUpToBuffer({ uri: env.uriFor(source), masterKey, tools: { mode: "builtin" } });
      const target = client.db("target");
      await target.dropDatabase();
      await target.collection("orders").insertOne({ _id: "live" } as never);
      const before: CollectionSnapshot[] = await snapshotDatabase(target);

      const error = await restoreFromEncrypted({ uri: ferretUri("target"), masterKey, input: Readable.from([file]), tools: { mode: "builtin" } }).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe(`MongoDB refused 1 document(s), so nothing was replaced (first: target.orders: ${refusal})`);
      expect(await snapshotDatabase(target)).toEqual(before);
    }, 120_000);
  }
});
