// Golden files pin format version 1: they were written once and must decrypt forever.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "./archive-test-helpers.ts";
import { ArchiveWriter, resolveEncryptOptions } from "./archive-writer.ts";
import { decryptBuffer } from "./convenience.ts";
import { readArchiveHeader } from "./header.ts";
import { inspectArchive } from "./inspect.ts";
import { decodeMasterKey } from "./keys.ts";

const GOLDEN_DIR = join(import.meta.dir, "../../test-data/golden");
const read = (name: string) => readFileSync(join(GOLDEN_DIR, name));
const masterKey = decodeMasterKey(read("test-key.txt").toString("utf8"));
const plaintext = read("plaintext.mongodump-archive");
const expected = JSON.parse(read("expected.json").toString("utf8")) as {
  plaintextSha256: string;
  files: Record<string, { fileSha256: string; chunkCount: number; header: Record<string, unknown> }>;
};

describe("golden files of format version 1", () => {
  test("the expected plaintext is the one the files were made from", () => {
    expect(sha256Hex(plaintext)).toBe(expected.plaintextSha256);
    expect(sha256Hex(plaintext)).toBe("baf043843edb6a934458568d319c9bd02123895dc8b99dc9bbdba4c753e27cc9");
  });

  for (const compression of ["zstd", "gzip", "none"] as const) {
    const name = `v1-${compression}.enc.dbvault`;
    test(`${name} decrypts to the expected plaintext, byte for byte`, async () => {
      const file = read(name);
      const want = expected.files[name]!;
      expect(sha256Hex(file)).toBe(want.fileSha256);
      const { header, plaintext: got } = await decryptBuffer(file, { masterKey });
      expect(got.equals(plaintext)).toBe(true);
      expect(JSON.parse(JSON.stringify(header))).toEqual(want.header);
      expect(header.compression).toBe(compression);
      expect((await inspectArchive([file])).chunkCount).toBe(want.chunkCount);
      expect(want.chunkCount).toBeGreaterThanOrEqual(2);
    });
  }

  test("today's writer reproduces the uncompressed golden file exactly from its salt", () => {
    // Only "none" is byte-stable: zstd/gzip output may change with the library version.
    const golden = read("v1-none.enc.dbvault");
    const header = readArchiveHeader(golden);
    const options = resolveEncryptOptions({
      masterKey,
      compression: "none",
      chunkSize: header.chunkSize,
      createdAt: header.createdAt,
    });
    const writer = new ArchiveWriter(options, Buffer.from(header.salt, "hex"));
    const file = Buffer.concat([writer.headerBytes, ...writer.write(plaintext), ...writer.end()]);
    expect(file.equals(golden)).toBe(true);
  });
});
