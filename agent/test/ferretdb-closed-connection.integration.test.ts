// A backup of the MongoDB test server restored into FerretDB 1.x (issue 46, the checks it lists):
// for values it does not store (a Decimal128, NaN, JavaScript code…) FerretDB does not refuse the
// document, it closes the connection, and the driver says only "connection 1 to HOST closed". The
// restore now says why, naming the values, their fields and FerretDB's rules (field names starting
// with "$" or holding a dot among them, when the batch has some); the target is untouched. On the
// real FerretDB; ferretdb-field-names.integration.test.ts has the "$" and dotted names FerretDB
// refuses by a write error.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import { Code, Decimal128, Double, MongoClient } from "mongodb";
import { generateMasterKey } from "../src/archive/index.ts";
import { DumpError, restoreFromEncrypted } from "../src/dump/index.ts";
import { type FerretDbServer, findFerretDb, startFerretDb } from "../../testkit/ferretdb.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { backUpToBuffer } from "./support/back-up.ts";
import { type CollectionSnapshot, snapshotDatabase } from "./support/database-snapshot.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./support/test-env.ts";

const { missing } = findFerretDb();
const { tools, missing: toolsMissing } = findMongoTools();
const masterKey = generateMasterKey();

let env: AgentTestEnv;
let ferretdb: FerretDbServer;
let client: MongoClient;
const ferretUri = (database: string) => ferretdb.uri.replace(/\/[^/?]*(\?|$)/, `/${database}$1`);

describe.skipIf(missing !== null)(`a restore into FerretDB that closes the connection${missing ? ` [skipped: ${missing}]` : ""}`, () => {
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

  async function restoreIntoFerretDb(
    documents: object[],
    engine: Parameters<typeof restoreFromEncrypted>[0]["tools"] = { mode: "builtin" },
  ): Promise<{ error: unknown; before: CollectionSnapshot[]; after: CollectionSnapshot[] }> {
    const source = env.uniqueDatabase("closing");
    await env.client
      .db(source)
      .collection("prices")
      .insertMany(documents as never[]);
    const { file } = await backUpToBuffer({ uri: env.uriFor(source), masterKey, tools: { mode: "builtin" } });
    const target = client.db("target");
    await target.dropDatabase();
    await target.collection("prices").insertOne({ _id: "live" } as never);
    const before = await snapshotDatabase(target);
    const error = await restoreFromEncrypted({ uri: ferretUri("target"), masterKey, input: Readable.from([file]), tools: engine }).catch(
      (caught: unknown) => caught,
    );
    return { error, before, after: await snapshotDatabase(target) };
  }

  test("a Decimal128 and NaN: the values, their fields and FerretDB's rule are named, not just a closed connection", async () => {
    const { error, before, after } = await restoreIntoFerretDb([
      { _id: 0, plain: true },
      { _id: 1, price: Decimal128.fromString("19.90") },
      { _id: 2, stats: { ratio: new Double(Number.NaN) } },
    ]);
    expect(error).toBeInstanceOf(DumpError);
    expect((error as DumpError).message).toBe(
      `inserting into target.prices failed: the server closed the connection on documents holding a Decimal128 (field "price"), NaN or an infinite double (field "stats.ratio"). FerretDB does not store Decimal128, NaN or infinite doubles, JavaScript code, symbols, MinKey, MaxKey, DBPointer, undefined or arrays inside arrays; nothing was replaced`,
    );
    expect((error as DumpError).hint).toBe(
      "restore this backup into MongoDB, or change those fields in the source database and back it up again; the backup itself is intact",
    );
    expect(after).toEqual(before);
  }, 120_000);

  test("JavaScript code beside a field name starting with $: both rules are said", async () => {
    const { error, before, after } = await restoreIntoFerretDb([
      { _id: 1, check: new Code("function () { return 1; }") },
      { _id: 2, meta: { $source: "import" } },
    ]);
    expect((error as DumpError).message).toBe(
      `inserting into target.prices failed: the server closed the connection on documents holding JavaScript code (field "check"), a field name starting with "$" (field "meta.$source"). FerretDB does not accept field names starting with \`$\` or containing dots; FerretDB does not store Decimal128, NaN or infinite doubles, JavaScript code, symbols, MinKey, MaxKey, DBPointer, undefined or arrays inside arrays; nothing was replaced`,
    );
    expect(after).toEqual(before);
  }, 120_000);

  test.skipIf(toolsMissing !== null)(
    "with the real mongorestore (auto mode takes it here): the values are named too, not its EOF",
    async () => {
      const { error, before, after } = await restoreIntoFerretDb([{ _id: 1, price: Decimal128.fromString("19.90") }], {
        mode: "auto",
        mongodump: tools?.mongodump,
        mongorestore: tools?.mongorestore,
      });
      expect(error).toBeInstanceOf(DumpError);
      expect((error as DumpError).message).toBe(
        `mongorestore failed: the server closed its connection while restoring documents holding a Decimal128 (field "price"). FerretDB does not store Decimal128, NaN or infinite doubles, JavaScript code, symbols, MinKey, MaxKey, DBPointer, undefined or arrays inside arrays; nothing was replaced`,
      );
      expect(after).toEqual(before);
    },
    120_000,
  );
});
