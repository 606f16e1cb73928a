// Documents near 16 MiB on FerretDB (issue 46, the checks it lists): with several of them, FerretDB
// 1.x answers the real mongodump 100.18.0 (its find batches) with a wire message past what the
// tools read ("length of read message too large"), so mongodump fails; the agent's built-in
// engine backs them up and restores them byte for byte. This pins both: a backup of such a
// database is made with the built-in engine.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import { Binary, MongoClient } from "mongodb";
import { generateMasterKey } from "../src/archive/index.ts";
import { restoreFromEncrypted } from "../src/dump/index.ts";
import { type FerretDbServer, findFerretDb, startFerretDb } from "../../testkit/ferretdb.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { backUpToBuffer } from "./support/back-up.ts";

const { tools, missing: toolsMissing } = findMongoTools();
const missing = toolsMissing ?? findFerretDb().missing;
const masterKey = generateMasterKey();
/** Just under the 16 MiB a BSON document may hold, with room for its _id and field name. */
const BLOB_BYTES = 16 * 1024 * 1024 - 1024;

let ferretdb: FerretDbServer;
let client: MongoClient;
let blob: Buffer;
const uriFor = (database: string) => ferretdb.uri.replace(/\/[^/?]*(\?|$)/, `/${database}$1`);

describe.skipIf(missing !== null)(`on FerretDB, documents near 16 MiB${missing ? ` [skipped: ${missing}]` : ""}`, () => {
  beforeAll(async () => {
    ferretdb = await startFerretDb();
    client = await new MongoClient(ferretdb.uri).connect();
    blob = Buffer.alloc(BLOB_BYTES);
    for (let i = 0; i < blob.length; i += 4096) blob[i] = i % 251;
    await client
      .db("large")
      .collection("files")
      .insertMany([
        { _id: 1, blob: new Binary(blob) },
        { _id: 2, small: true },
      ] as never[]);
    for (let i = 3; i < 7; i++)
      await client
        .db("large")
        .collection("files")
        .insertOne({ _id: i, blob: new Binary(blob) } as never);
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await ferretdb?.stop();
  });

  test("the real mongodump cannot read them", async () => {
    const error = await backUpToBuffer({ uri: uriFor("large"), masterKey, tools: { mode: "native", mongodump: tools!.mongodump } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain("length of read message too large");
  }, 120_000);

  test("the built-in engine backs them up and restores them byte for byte", async () => {
    const { file, result } = await backUpToBuffer({ uri: uriFor("large"), masterKey, tools: { mode: "builtin" } });
    expect(result).toMatchObject({ engine: "builtin", documents: 6 });
    await restoreFromEncrypted({ uri: uriFor("restored"), masterKey, input: Readable.from([file]), tools: { mode: "builtin" } });
    const back = await client
      .db("restored")
      .collection("files")
      .findOne({ _id: 1 as never });
    expect(Buffer.from((back!.blob as Binary).buffer).equals(blob)).toBe(true);
    expect(await client.db("restored").collection("files").countDocuments()).toBe(6);
  }, 120_000);
});
