// Restore safety: a wrong key, a foreign file, a damaged header or first chunk, or an archive
// with bad metadata must fail before the first collection is dropped, leaving the target
// database exactly as it was. Damage further in fails the restore with a reason and a list of
// the collections already replaced. On every target (testkit/mongo-targets.ts).
import { afterAll, beforeAll, describe, expect } from "bun:test";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { Readable } from "node:stream";
import {
  CorruptChunkError,
  encryptBuffer,
  generateMasterKey,
  HeaderTamperedError,
  NotAnArchiveError,
  readArchiveHeader,
  TruncatedArchiveError,
  WrongKeyError,
} from "../src/archive/index.ts";
import { BSON, Int32 } from "mongodb";
import { DumpError, restoreDatabase, restoreFromEncrypted } from "../src/dump/index.ts";
import { MongodumpArchiveError, writeMongodumpArchive } from "../src/dump/mongodump-archive/index.ts";
import { listMongoTargets, testOnTarget } from "../../testkit/mongo-targets.ts";
import { type CollectionSnapshot, snapshotDatabase } from "./support/database-snapshot.ts";
import { backUpToBuffer } from "./support/back-up.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./support/test-env.ts";
import type { AnyIdDocument } from "./support/awkward-database.ts";

const CHUNK_SIZE = 4096;
const BAD_FORMAT = new URL("../test-data/mongodump-archives/bad-format.archive", import.meta.url);

for (const server of listMongoTargets()) {
  describe(`on ${server.name}`, () => {
    let env: AgentTestEnv;
    let target: string;
    let before: CollectionSnapshot[];
    let file: Buffer;
    const masterKey = generateMasterKey();

    beforeAll(async () => {
      if (server.unavailable !== null) return;
      env = await openAgentTestEnv(server);
      const source = env.uniqueDatabase("safety_src");
      target = env.uniqueDatabase("safety_dst");
      // Incompressible text, so the file has many chunks and damage can sit well past the prelude.
      const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ _id: i, text: randomBytes(60).toString("base64") }));
      await env.client.db(source).collection<AnyIdDocument>("keep").insertMany(rows(3000));
      await env.client.db(source).collection<AnyIdDocument>("more").insertMany(rows(3000));
      await env.client
        .db(target)
        .collection<AnyIdDocument>("keep")
        .insertMany([{ _id: "original", untouched: true }]);
      await env.client.db(target).collection("keep").createIndex({ untouched: 1 });
      await env.client
        .db(target)
        .collection<AnyIdDocument>("more")
        .insertMany([{ _id: "original too" }]);
      before = await snapshotDatabase(env.client.db(target));

      ({ file } = await backUpToBuffer({ uri: env.uriFor(source), masterKey, chunkSize: CHUNK_SIZE, tools: { mode: "builtin" } }));
      expect(file.length).toBeGreaterThan(CHUNK_SIZE * 40);
    });
    afterAll(() => env?.close());

    // Pieces the size of a file read or a download's body chunks, not one buffer holding the file.
    function* slice(bytes: Buffer, size = 16 * 1024): Generator<Buffer> {
      for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
    }

    async function restore(bytes: Buffer, key: Uint8Array = masterKey): Promise<unknown> {
      return restoreFromEncrypted({ uri: env.uriFor(target), masterKey: key, input: Readable.from(slice(bytes)), tools: { mode: "builtin" } }).then(
        () => undefined,
        (error: unknown) => error,
      );
    }

    function flipByte(bytes: Buffer, offset: number): Buffer {
      const copy = Buffer.from(bytes);
      copy[offset] = copy[offset]! ^ 0x40;
      return copy;
    }

    async function expectNoStagingLeft(): Promise<void> {
      const names = (await env.client.db(target).listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name);
      expect(names.filter((name) => name.includes(".dbvault-restore-"))).toEqual([]);
    }

    async function expectTargetUntouched(): Promise<void> {
      const now = await snapshotDatabase(env.client.db(target));
      expect(now).toEqual(before);
    }

    testOnTarget(server, [], "a wrong key fails with WrongKeyError and leaves the database untouched", async () => {
      const error = await restore(file, generateMasterKey());
      expect(error).toBeInstanceOf(WrongKeyError);
      await expectTargetUntouched();
    });

    testOnTarget(server, [], "a changed header byte fails with HeaderTamperedError and leaves the database untouched", async () => {
      // The header's last byte is its MAC's: any header field changed fails that check the same way.
      expect(await restore(flipByte(file, readArchiveHeader(file).headerLength - 1))).toBeInstanceOf(HeaderTamperedError);
      await expectTargetUntouched();
    });

    testOnTarget(server, [], "a damaged first chunk fails with CorruptChunkError and leaves the database untouched", async () => {
      const error = await restore(flipByte(file, readArchiveHeader(file).headerLength + 40));
      expect(error).toBeInstanceOf(CorruptChunkError);
      expect((error as CorruptChunkError).chunkIndex).toBe(0);
      await expectTargetUntouched();
    });

    testOnTarget(server, [], "a file cut inside its first chunk fails with TruncatedArchiveError and leaves the database untouched", async () => {
      expect(await restore(file.subarray(0, readArchiveHeader(file).headerLength + 1000))).toBeInstanceOf(TruncatedArchiveError);
      await expectTargetUntouched();
    });

    testOnTarget(server, [], "a file that is not a backup fails with NotAnArchiveError and leaves the database untouched", async () => {
      expect(await restore(randomBytes(50_000))).toBeInstanceOf(NotAnArchiveError);
      await expectTargetUntouched();
    });

    testOnTarget(server, [], "bad-format.archive fails with a clear error and writes nothing, plain or encrypted", async () => {
      const archive = await readFile(BAD_FORMAT);
      const plain = await restoreDatabase({ uri: env.uriFor(target), input: [archive], tools: { mode: "builtin" } }).catch((e: unknown) => e);
      expect(plain).toBeInstanceOf(MongodumpArchiveError);
      expect((plain as MongodumpArchiveError).code).toBe("invalid-metadata");
      expect((plain as Error).message).toContain("not valid Extended JSON");
      const sealed = await encryptBuffer(archive, { masterKey });
      expect(await restore(sealed)).toBeInstanceOf(MongodumpArchiveError);
      await expectTargetUntouched();
      // Its collections would restore under their own database; none of them appeared.
      const names = (await env.client.db("admin").admin().listDatabases()).databases.map((d) => d.name);
      const archived = [...new Set([...archive.toString("latin1").matchAll(/db\x00.{4}(\w+)\x00/g)].map((m) => m[1]))];
      for (const name of archived) if (name !== "admin") expect(names).not.toContain(name);
    });

    testOnTarget(server, [], "damage far into the file fails with CorruptChunkError and leaves the database untouched", async () => {
      const lastChunks = file.length - CHUNK_SIZE * 3;
      const error = await restore(flipByte(file, lastChunks));
      expect(error).toBeInstanceOf(CorruptChunkError);
      expect((error as Error).message).toContain("backup file is corrupted at chunk");
      await expectTargetUntouched();
      await expectNoStagingLeft();
    });

    testOnTarget(server, [], "an index the server refuses fails the restore before anything is replaced, and no staging is left", async () => {
      const archive = writeMongodumpArchive(
        {
          header: { serverVersion: "7.0.0" },
          collections: [
            { db: "src", collection: "keep", type: "collection", indexes: [{ v: new Int32(2), key: { _id: new Int32(1) }, name: "_id_" }] },
            // An index spec every server refuses: its key is empty.
            { db: "src", collection: "more", type: "collection", indexes: [{ v: new Int32(2), key: {}, name: "empty_key" }] },
          ],
        },
        [
          { kind: "document", namespace: "src.keep", bytes: BSON.serialize({ _id: 1 }) },
          { kind: "document", namespace: "src.more", bytes: BSON.serialize({ _id: 1 }) },
        ],
      );
      const error = await restoreDatabase({ uri: env.uriFor(target), input: archive, tools: { mode: "builtin" } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DumpError);
      expect((error as DumpError).code).toBe("database-error");
      expect((error as Error).message).toContain(`creating ${target}.more`);
      await expectTargetUntouched();
      await expectNoStagingLeft();
    });
  });
}
