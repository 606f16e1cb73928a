// Writes the version 1 golden files ONCE. They pin the format: a file written by this code on
// the day it shipped must decrypt forever. Never regenerate them; if the golden test fails, the
// code is wrong. Run: bun agent/test-data/golden/write-golden.ts (refuses to overwrite).
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeMasterKey, encryptBuffer, readArchiveHeader } from "../../src/archive/index.ts";
import type { Compression } from "../../src/archive/index.ts";
import { inspectArchive } from "../../src/archive/inspect.ts";

const dir = import.meta.dir;
const masterKey = decodeMasterKey(readFileSync(join(dir, "test-key.txt"), "utf8"));
const plaintext = readFileSync(join(dir, "plaintext.mongodump-archive"));
const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

const expected: Record<string, unknown> = { plaintextSha256: sha256(plaintext), files: {} };
for (const compression of ["zstd", "gzip", "none"] as Compression[]) {
  const name = `v1-${compression}.enc.dbvault`;
  if (existsSync(join(dir, name))) throw new Error(`${name} exists: golden files are never rewritten`);
  const file = await encryptBuffer(plaintext, {
    masterKey,
    compression,
    chunkSize: 256,
    createdAt: new Date("2026-11-23T12:00:00.000Z"),
  });
  writeFileSync(join(dir, name), file);
  const { chunkCount } = await inspectArchive([file]);
  (expected.files as Record<string, unknown>)[name] = {
    fileSha256: sha256(file),
    chunkCount,
    header: readArchiveHeader(file),
  };
}
writeFileSync(join(dir, "expected.json"), `${JSON.stringify(expected, null, 2)}\n`);
