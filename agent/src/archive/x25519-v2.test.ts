// Wrap kind 0x02 (write-only agents): the golden file, cross-checked once with Python's
// `cryptography` (X25519, AESGCM) from docs/archive-format.md alone, must open forever with its
// identity; nothing else opens it, and every byte of the stanza is covered.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "./archive-test-helpers.ts";
import { decryptBuffer, encryptBuffer } from "./convenience.ts";
import { HeaderTamperedError, NeedsIdentityError, WrongKeyError } from "./errors.ts";
import { decodeMasterKey } from "./keys.ts";
import { decodeIdentity, generateIdentity, recipientFingerprint, recipientOf } from "./x25519-recipient.ts";

const GOLDEN_DIR = join(import.meta.dir, "../../test-data/golden");
const read = (name: string) => readFileSync(join(GOLDEN_DIR, name));
const identity = decodeIdentity(read("test-identity.txt").toString("utf8"));
const masterKey = decodeMasterKey(read("test-key.txt").toString("utf8"));
const plaintext = read("plaintext.mongodump-archive");
const NAME = "v2-x25519-zstd.enc.dbvault";
const golden = read(NAME);
const expected = JSON.parse(read("expected-x25519.json").toString("utf8")).files[NAME];
// Stanza layout in this file: kind at 27, length at 28-29, body at 30: E (32) ‖ fingerprint (16) ‖ wrapped (32) ‖ tag (16).
const STANZA = { kind: 27, ephemeral: 30, fingerprint: 62, wrapped: 78, tag: 110, mac: 126 };

const flip = (file: Uint8Array, offset: number) => {
  const copy = Buffer.from(file);
  copy[offset]! ^= 0x01;
  return copy;
};

describe("wrap kind 0x02: data key sealed to an X25519 recipient", () => {
  test("the golden file decrypts with its identity to the expected plaintext, byte for byte", async () => {
    expect(sha256Hex(golden)).toBe(expected.fileSha256);
    const { header, plaintext: got } = await decryptBuffer(golden, { masterKey: [], identities: [identity] });
    expect(got.equals(plaintext)).toBe(true);
    expect(JSON.parse(JSON.stringify(header))).toEqual(expected.header);
    expect(header.keyId).toBe(recipientFingerprint(recipientOf(identity)).toString("hex"));
  });

  test("a master key cannot open it, and the error asks for the identity", async () => {
    const error = await decryptBuffer(golden, { masterKey }).catch((e) => e);
    expect(error).toBeInstanceOf(NeedsIdentityError);
    expect(error.message).toContain(expected.header.keyId);
  });

  test("another identity cannot open it, and the error names both fingerprints", async () => {
    const other = generateIdentity();
    const error = await decryptBuffer(golden, { masterKey: [], identities: [other] }).catch((e) => e);
    expect(error).toBeInstanceOf(NeedsIdentityError);
    expect(error.suppliedFingerprints).toEqual([recipientFingerprint(recipientOf(other)).toString("hex")]);
  });

  test("a new file sealed to a recipient opens only with its identity", async () => {
    const fresh = generateIdentity();
    const file = await encryptBuffer(plaintext, { recipient: recipientOf(fresh), chunkSize: 1024 });
    expect((await decryptBuffer(file, { masterKey: [], identities: [fresh] })).plaintext.equals(plaintext)).toBe(true);
    await expect(decryptBuffer(file, { masterKey: [], identities: [identity] })).rejects.toBeInstanceOf(NeedsIdentityError);
  });

  for (const [field, offset] of [
    ["ephemeral key", STANZA.ephemeral],
    ["wrapped data key", STANZA.wrapped + 5],
    ["tag", STANZA.tag + 15],
    ["header MAC", STANZA.mac + 31],
    ["created-at (covered by the MAC)", 25],
  ] as const) {
    test(`a flipped bit in the ${field} reads as a tampered header`, async () => {
      await expect(decryptBuffer(flip(golden, offset), { masterKey: [], identities: [identity] })).rejects.toBeInstanceOf(HeaderTamperedError);
    });
  }

  test("a changed fingerprint names a recipient the identity is not for", async () => {
    await expect(decryptBuffer(flip(golden, STANZA.fingerprint), { masterKey: [], identities: [identity] })).rejects.toBeInstanceOf(NeedsIdentityError);
  });

  test("a stanza relabelled as a master-key stanza reads as a wrong key, never as opened", async () => {
    const relabelled = Buffer.from(golden);
    relabelled[STANZA.kind] = 0x01;
    await expect(decryptBuffer(relabelled, { masterKey, identities: [identity] })).rejects.toBeInstanceOf(WrongKeyError);
  });
});
