// Writes the version 2 golden files ONCE (see write-golden.ts for version 1). Never regenerate
// them; if the golden test fails, the code is wrong. Run: bun agent/test-data/golden/write-golden-v2.ts
// (refuses to overwrite). v2-none-rewrapped is v2-none with its data key rewrapped to test-key-2.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeMasterKey, encryptBuffer, readArchiveHeader } from "../../src/archive/index.ts";
import type { Compression } from "../../src/archive/index.ts";
import { inspectArchive } from "../../src/archive/inspect.ts";
import { rewrapHeaderV2 } from "../../src/archive/header-v2.ts";

const dir = import.meta.dir;
const masterKey = decodeMasterKey(readFileSync(join(dir, "test-key.txt"), "utf8"));
const secondKey = decodeMasterKey(readFileSync(join(dir, "test-key-2.txt"), "utf8"));
const plaintext = readFileSync(join(dir, "plaintext.mongodump-archive"));
const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

const files: Record<string, Buffer> = {};
for (const compression of ["zstd", "gzip", "none"] as Compression[]) {
  files[`v2-${compression}.enc.dbvault`] = await encryptBuffer(plaintext, {
    masterKey,
    compression,
    chunkSize: 256,
    createdAt: new Date("2026-11-27T06:00:00.000Z"),
    formatVersion: 2,
  });
}
const none = files["v2-none.enc.dbvault"]!;
const headerLength = readArchiveHeader(none).headerLength;
const rewrapped = rewrapHeaderV2(none.subarray(0, headerLength), [masterKey], secondKey);
files["v2-none-rewrapped.enc.dbvault"] = Buffer.concat([rewrapped, none.subarray(headerLength)]);

const expected: Record<string, unknown> = { plaintextSha256: sha256(plaintext), files: {} };
for (const [name, file] of Object.entries(files)) {
  if (existsSync(join(dir, name))) throw new Error(`${name} exists: golden files are never rewritten`);
  writeFileSync(join(dir, name), file);
  const { chunkCount } = await inspectArchive([file]);
  (expected.files as Record<string, unknown>)[name] = { fileSha256: sha256(file), chunkCount, header: readArchiveHeader(file) };
}
writeFileSync(join(dir, "expected-v2.json"), `${JSON.stringify(expected, null, 2)}\n`);
