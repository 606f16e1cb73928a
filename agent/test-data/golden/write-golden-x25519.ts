// Writes the golden file of wrap kind 0x02 (a data key sealed to an X25519 recipient) ONCE. Never
// regenerate it; if its test fails, the code is wrong. Run: bun agent/test-data/golden/write-golden-x25519.ts
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeIdentity, encodeIdentity, encryptBuffer, generateIdentity, readArchiveHeader, recipientOf } from "../../src/archive/index.ts";
import { inspectArchive } from "../../src/archive/inspect.ts";

const dir = import.meta.dir;
const name = "v2-x25519-zstd.enc.dbvault";
for (const file of [name, "test-identity.txt", "expected-x25519.json"]) {
  if (existsSync(join(dir, file))) throw new Error(`${file} exists: golden files are never rewritten`);
}
const identityText = encodeIdentity(generateIdentity());
const plaintext = readFileSync(join(dir, "plaintext.mongodump-archive"));
const file = await encryptBuffer(plaintext, {
  recipient: recipientOf(decodeIdentity(identityText)),
  compression: "zstd",
  chunkSize: 256,
  createdAt: new Date("2026-11-27T06:05:00.000Z"),
});
const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");
writeFileSync(join(dir, "test-identity.txt"), `${identityText}\n`);
writeFileSync(join(dir, name), file);
const { chunkCount } = await inspectArchive([file]);
const expected = { plaintextSha256: sha256(plaintext), files: { [name]: { fileSha256: sha256(file), chunkCount, header: readArchiveHeader(file) } } };
writeFileSync(join(dir, "expected-x25519.json"), `${JSON.stringify(expected, null, 2)}\n`);
