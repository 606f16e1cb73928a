// Golden files pin format version 2 (envelope encryption): written once, they must decrypt forever.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "./archive-test-helpers.ts";
import { ArchiveWriter, resolveEncryptOptions } from "./archive-writer.ts";
import { decryptBuffer } from "./convenience.ts";
import { WrongKeyError } from "./errors.ts";
import { readArchiveHeader } from "./header.ts";
import { openHeaderV2 } from "./header-v2.ts";
import { inspectArchive } from "./inspect.ts";
import { decodeMasterKey } from "./keys.ts";

const GOLDEN_DIR = join(import.meta.dir, "../../test-data/golden");
const read = (name: string) => readFileSync(join(GOLDEN_DIR, name));
const masterKey = decodeMasterKey(read("test-key.txt").toString("utf8"));
const secondKey = decodeMasterKey(read("test-key-2.txt").toString("utf8"));
const plaintext = read("plaintext.mongodump-archive");
const expected = JSON.parse(read("expected-v2.json").toString("utf8")) as {
  plaintextSha256: string;
  files: Record<string, { fileSha256: string; chunkCount: number; header: Record<string, unknown> }>;
};

describe("golden files of format version 2", () => {
  test("the expected plaintext is the one the files were made from", () => {
    expect(expected.plaintextSha256).toBe("baf043843edb6a934458568d319c9bd02123895dc8b99dc9bbdba4c753e27cc9");
  });

  for (const [name, key] of [
    ["v2-zstd.enc.dbvault", masterKey],
    ["v2-gzip.enc.dbvault", masterKey],
    ["v2-none.enc.dbvault", masterKey],
    ["v2-none-rewrapped.enc.dbvault", secondKey],
  ] as const) {
    test(`${name} decrypts to the expected plaintext, byte for byte`, async () => {
      const file = read(name);
      const want = expected.files[name]!;
      expect(sha256Hex(file)).toBe(want.fileSha256);
      const { header, plaintext: got } = await decryptBuffer(file, { masterKey: key });
      expect(got.equals(plaintext)).toBe(true);
      expect(JSON.parse(JSON.stringify(header))).toEqual(want.header);
      expect(header.version).toBe(2);
      expect((await inspectArchive([file])).chunkCount).toBe(want.chunkCount);
    });
  }

  test("the rewrapped file has the original's chunks, byte for byte, and only the new key opens it", async () => {
    const original = read("v2-none.enc.dbvault");
    const rewrapped = read("v2-none-rewrapped.enc.dbvault");
    const length = readArchiveHeader(original).headerLength;
    expect(readArchiveHeader(rewrapped).headerLength).toBe(length);
    expect(rewrapped.subarray(length).equals(original.subarray(length))).toBe(true);
    expect(rewrapped.subarray(0, length).equals(original.subarray(0, length))).toBe(false);
    await expect(decryptBuffer(rewrapped, { masterKey })).rejects.toBeInstanceOf(WrongKeyError);
    // With the old key kept in the keyring, either file opens.
    expect((await decryptBuffer(original, { masterKey: [secondKey, masterKey] })).plaintext.equals(plaintext)).toBe(true);
  });

  test("today's writer reproduces the uncompressed golden file exactly from its data key and wrap salt", () => {
    const golden = read("v2-none.enc.dbvault");
    const header = readArchiveHeader(golden);
    const { dataKey } = openHeaderV2(golden.subarray(0, header.headerLength), [masterKey]);
    const wrapSalt = Buffer.from(header.salt, "hex");
    const options = resolveEncryptOptions({ masterKey, compression: "none", chunkSize: header.chunkSize, createdAt: header.createdAt });
    const writer = new ArchiveWriter(options, { dataKey, wrapSalt });
    const file = Buffer.concat([writer.headerBytes, ...writer.write(plaintext), ...writer.end()]);
    expect(file.equals(golden)).toBe(true);
  });
});
