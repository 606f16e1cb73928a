// Version 2 (envelope encryption): every change to the header, the wrapped data key or the key id
// it names is detected; a keyring opens files of older keys; a rewrap keeps the data and re-MACs.
import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { captureDecryptError, encryptForTest, flipBit, makePayload, OTHER_TEST_KEY, TEST_KEY } from "./archive-test-helpers.ts";
import { decryptBuffer } from "./convenience.ts";
import {
  CorruptChunkError,
  HeaderTamperedError,
  MalformedHeaderError,
  NotAnArchiveError,
  TruncatedArchiveError,
  UnsupportedVersionError,
  WrongKeyError,
} from "./errors.ts";
import { readArchiveHeader } from "./header.ts";
import { openHeaderV2, rewrapHeaderV2 } from "./header-v2.ts";
import { deriveFileKeysV2 } from "./key-wrap.ts";
import { deriveKeyId, generateMasterKey } from "./keys.ts";

const PLAINTEXT = makePayload(64 * 3 + 5, 7);
const file = await encryptForTest(PLAINTEXT);
const HEADER = readArchiveHeader(file).headerLength;
// Offsets in a header with one master-key stanza (docs/archive-format.md).
const KEY_ID = 30;
const WRAP_SALT = 46;
const WRAPPED_KEY = 78;
const MAC = HEADER - 32;

const splitHeader = (bytes: Buffer) => ({ header: bytes.subarray(0, HEADER), body: bytes.subarray(HEADER) });

describe("version 2 files", () => {
  test("new files are version 2 with one master-key stanza naming the key by its id", () => {
    expect(readArchiveHeader(file)).toMatchObject({ version: 2, keyId: deriveKeyId(TEST_KEY), headerLength: 158 });
    expect(file.subarray(KEY_ID, KEY_ID + 16).toString("hex")).toBe(deriveKeyId(TEST_KEY));
  });

  test("every single bit flip in the header is caught and named", async () => {
    for (let offset = 0; offset < HEADER; offset++) {
      const error = await captureDecryptError(flipBit(file, offset, offset % 8));
      if (offset < 8) expect(error).toBeInstanceOf(NotAnArchiveError);
      else if (offset < 10) expect(error).toBeInstanceOf(UnsupportedVersionError);
      else if (offset < 12)
        expect([MalformedHeaderError, TruncatedArchiveError, HeaderTamperedError, CorruptChunkError].some((c) => error instanceof c)).toBe(true);
      else if (offset >= KEY_ID && offset < WRAP_SALT) {
        expect(error).toBeInstanceOf(WrongKeyError);
        expect((error as WrongKeyError).fileKeyId).toBe(
          flipBit(file, offset, offset % 8)
            .subarray(KEY_ID, WRAP_SALT)
            .toString("hex"),
        );
      } else if (offset === 26 || (offset >= 27 && offset < 30)) {
        // Stanza count and stanza head: the structure no longer parses, or the stanza is not one this key opens.
        expect([MalformedHeaderError, WrongKeyError, HeaderTamperedError].some((c) => error instanceof c)).toBe(true);
      } else expect(error).toBeInstanceOf(HeaderTamperedError);
    }
  });

  test("a wrapped key, wrap salt or tag changed by one bit reads as tampering", async () => {
    for (const offset of [WRAP_SALT, WRAPPED_KEY, WRAPPED_KEY + 31, MAC - 1, MAC]) {
      expect(await captureDecryptError(flipBit(file, offset))).toBeInstanceOf(HeaderTamperedError);
    }
  });

  test("a key id rewritten to another key of the keyring reads as tampering, not as that key's file", async () => {
    const forged = Buffer.from(file);
    Buffer.from(deriveKeyId(OTHER_TEST_KEY), "hex").copy(forged, KEY_ID);
    const error = await captureDecryptError(forged, OTHER_TEST_KEY);
    expect(error).toBeInstanceOf(HeaderTamperedError);
    await expect(decryptBuffer(forged, { masterKey: [TEST_KEY, OTHER_TEST_KEY] })).rejects.toBeInstanceOf(HeaderTamperedError);
  });

  test("another file's stanza (same key, valid wrap) moved onto this header fails the MAC", async () => {
    const other = await encryptForTest(PLAINTEXT);
    const moved = Buffer.concat([file.subarray(0, KEY_ID), other.subarray(KEY_ID, MAC), file.subarray(MAC)]);
    expect(await captureDecryptError(moved)).toBeInstanceOf(HeaderTamperedError);
  });

  test("another file's whole header on these chunks fails at the first chunk", async () => {
    const other = await encryptForTest(PLAINTEXT);
    const spliced = Buffer.concat([splitHeader(other).header, splitHeader(file).body]);
    const error = await captureDecryptError(spliced);
    expect(error).toBeInstanceOf(CorruptChunkError);
    expect((error as CorruptChunkError).chunkIndex).toBe(0);
  });

  test("a wrong key names both key ids, as in version 1", async () => {
    const error = (await captureDecryptError(file, OTHER_TEST_KEY)) as WrongKeyError;
    expect(error).toBeInstanceOf(WrongKeyError);
    expect(error.message).toBe(
      `wrong key: this backup was encrypted with the key whose id is ${deriveKeyId(TEST_KEY)}, ` +
        `but the key supplied has id ${deriveKeyId(OTHER_TEST_KEY)}; use the master key of the agent that made the backup (dbvault-agent key export)`,
    );
  });

  test("a keyring without the file's key names the key id needed and every id it holds", async () => {
    const newest = generateMasterKey();
    const error = await decryptBuffer(file, { masterKey: [newest, OTHER_TEST_KEY] }).then(
      () => expect.unreachable(),
      (e) => e as WrongKeyError,
    );
    expect(error).toBeInstanceOf(WrongKeyError);
    expect(error.fileKeyId).toBe(deriveKeyId(TEST_KEY));
    expect(error.keyringKeyIds).toEqual([deriveKeyId(newest), deriveKeyId(OTHER_TEST_KEY)]);
    expect(error.message).toContain(`encrypted with the key whose id is ${deriveKeyId(TEST_KEY)}, and no key of the keyring`);
  });

  test("a keyring opens version 1 and version 2 files of an older key", async () => {
    const v1 = await encryptForTest(PLAINTEXT, { formatVersion: 1 });
    for (const old of [v1, file]) {
      const { plaintext } = await decryptBuffer(old, { masterKey: [OTHER_TEST_KEY, TEST_KEY] });
      expect(plaintext.equals(PLAINTEXT)).toBe(true);
    }
  });
});

describe("rewrapping", () => {
  test("a rewrapped header has a new wrap and MAC, the same length, and opens the same chunks with the new key only", async () => {
    const { header, body } = splitHeader(file);
    const rewrapped = rewrapHeaderV2(header, [TEST_KEY], OTHER_TEST_KEY);
    expect(rewrapped.length).toBe(header.length);
    expect(rewrapped.subarray(MAC).equals(header.subarray(MAC))).toBe(false);
    expect(rewrapped.subarray(KEY_ID, KEY_ID + 16).toString("hex")).toBe(deriveKeyId(OTHER_TEST_KEY));
    const moved = Buffer.concat([rewrapped, body]);
    expect((await decryptBuffer(moved, { masterKey: OTHER_TEST_KEY })).plaintext.equals(PLAINTEXT)).toBe(true);
    expect(await captureDecryptError(moved, TEST_KEY)).toBeInstanceOf(WrongKeyError);
    // The rewrapped header is authenticated like any other: one flipped bit in its wrapped key fails.
    expect(await captureDecryptError(flipBit(moved, WRAPPED_KEY), OTHER_TEST_KEY)).toBeInstanceOf(HeaderTamperedError);
  });

  test("rewrapping needs the current key and refuses a tampered header", () => {
    const { header } = splitHeader(file);
    expect(() => rewrapHeaderV2(header, [OTHER_TEST_KEY], generateMasterKey())).toThrow(WrongKeyError);
    expect(() => rewrapHeaderV2(flipBit(header, MAC), [TEST_KEY], OTHER_TEST_KEY)).toThrow(HeaderTamperedError);
  });
});

describe("room for other wrap kinds (write-only agents' public-key stanza)", () => {
  test("a stanza of an unknown kind is skipped, and still covered by the MAC", async () => {
    const { header, body } = splitHeader(file);
    const { dataKey } = openHeaderV2(header, [TEST_KEY]);
    const future = Buffer.concat([Buffer.of(0x7f), Buffer.from([0, 6]), Buffer.from("future")]);
    const grown = Buffer.concat([header.subarray(0, 27), future, header.subarray(27, MAC), Buffer.alloc(32)]);
    grown.writeUInt16BE(grown.length, 10);
    grown.writeUInt8(2, 26);
    const macOffset = grown.length - 32;
    createHmac("sha256", deriveFileKeysV2(dataKey).headerKey).update(grown.subarray(0, macOffset)).digest().copy(grown, macOffset);
    const withFuture = Buffer.concat([grown, body]);
    expect((await decryptBuffer(withFuture, { masterKey: TEST_KEY })).plaintext.equals(PLAINTEXT)).toBe(true);
    expect(await captureDecryptError(flipBit(withFuture, 30))).toBeInstanceOf(HeaderTamperedError);
    // A rewrap keeps the other kind's stanza.
    const rewrapped = rewrapHeaderV2(grown, [TEST_KEY], OTHER_TEST_KEY);
    expect(rewrapped.includes(Buffer.from("future"))).toBe(true);
    expect((await decryptBuffer(Buffer.concat([rewrapped, body]), { masterKey: OTHER_TEST_KEY })).plaintext.equals(PLAINTEXT)).toBe(true);
  });

  test("a header shorter than the smallest version 2 header is malformed", async () => {
    const short = Buffer.from(file);
    short.writeUInt16BE(40, 10);
    expect(await captureDecryptError(short)).toBeInstanceOf(MalformedHeaderError);
  });
});
