// Native dumps and restores (the real mongodump and mongorestore 100.18.0) of collections whose
// names the tools print Go-quoted ("…" with \n escaped) rather than in backticks: the result must
// list each collection once, under its own name, with the tool's count; never a staging name,
// never a collection twice. (The parser's side, over the captured logs: native/tool-output.test.ts.)
import { describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import { encryptBuffer, generateMasterKey } from "../src/archive/index.ts";
import { restoreFromEncrypted } from "../src/dump/index.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { QUOTED_NAMES } from "../test-data/mongo-tools-logs/quoted-names.ts";
import { backUpToBuffer } from "./support/back-up.ts";
import { snapshotDatabase } from "./support/database-snapshot.ts";
import { useOwnTestServer } from "./support/own-test-server.ts";
import { runTool } from "./support/real-tools.ts";

const { tools, missing } = findMongoTools();
const masterKey = generateMasterKey();

const own = useOwnTestServer();

describe.skipIf(missing !== null)(`native restore of Go-quoted names with the real mongorestore${missing ? ` [skipped: ${missing}]` : ""}`, () => {
  const eachTwice = () => Object.fromEntries(QUOTED_NAMES.map((name) => [`quoted.${name}`, 2]));

  test("a native dump counts each collection under its own name", async () => {
    await own.client.db("quoted").dropDatabase();
    for (const name of QUOTED_NAMES)
      await own.client
        .db("quoted")
        .collection(name)
        .insertMany([{ _id: 1 }, { _id: 2 }] as never[]);
    const { result } = await backUpToBuffer({ uri: `${own.server.uri}quoted`, masterKey, tools: { mode: "native", mongodump: tools!.mongodump } });
    expect(result).toMatchObject({ engine: "native", documents: 2 * QUOTED_NAMES.length });
    expect(result.collections).toEqual(eachTwice());
  });

  test("a restore counts each collection once under its own name, and the database holds exactly what the result says", async () => {
    // Two documents a collection in the backup; the live copy holds one in some, and one collection of its own.
    await own.client.db("quoted").dropDatabase();
    for (const name of QUOTED_NAMES)
      await own.client
        .db("quoted")
        .collection(name)
        .insertMany([{ _id: 1 }, { _id: 2 }] as never[]);
    const { stdout: archive } = await runTool(tools!.mongodump, [`--uri=${own.server.uri}`, "--db=quoted", "--archive"]);
    const backup = await snapshotDatabase(own.client.db("quoted"));
    await own.client.db("quoted").dropDatabase();
    for (const name of QUOTED_NAMES.slice(0, 3))
      await own.client
        .db("quoted")
        .collection(name)
        .insertOne({ _id: "live" } as never);
    await own.client
      .db("quoted")
      .collection("mine")
      .insertOne({ _id: "kept" } as never);

    const result = await restoreFromEncrypted({
      uri: `${own.server.uri}quoted`,
      masterKey,
      input: Readable.from([await encryptBuffer(archive, { masterKey })]),
      tools: { mode: "native", mongorestore: tools!.mongorestore },
    });

    expect(result.collections).toEqual(Object.fromEntries(QUOTED_NAMES.map((name) => [`quoted.${name}`, { restored: 2, failed: 0 }])));
    expect(result).toMatchObject({ engine: "native", restored: 2 * QUOTED_NAMES.length, failed: 0 });
    const now = await snapshotDatabase(own.client.db("quoted"));
    expect(now.filter((entry) => entry.name !== "mine")).toEqual(backup);
    expect(now.map((entry) => entry.name)).toContain("mine");
  });
});
