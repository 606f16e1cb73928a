// Known-answer tests: pinned outputs of every derivation and layout step of format version 1.
// The values were cross-checked with an independent implementation (Python's hmac and
// `cryptography` AESGCM) and are repeated in docs/archive-format.md. If one of these fails, the
// code no longer writes or reads the files customers already have: fix the code, not the value.
import { describe, expect, test } from "bun:test";
import { TEST_KEY } from "./archive-test-helpers.ts";
import { buildFrameHeader, buildNonce, openChunk, sealChunk } from "./chunk-crypto.ts";
import { encodeHeaderV1, openHeader } from "./header.ts";
import { deriveFileKeysV1, deriveKeyId } from "./keys.ts";

const SALT = Buffer.from(Array.from({ length: 32 }, (_, i) => 0x40 + i));
const PAYLOAD_KEY = "81d10d048dbe17cdcd52fbdfe153af203842ea886e900359b3e29e0e28affc7e";

describe("key derivation (version 1)", () => {
  test("key id of the test key is pinned", () => {
    expect(deriveKeyId(TEST_KEY)).toBe("2deacbd61cb59e47db556f754d6d86ae");
  });

  test("header and payload keys for a fixed salt are pinned", () => {
    const keys = deriveFileKeysV1(TEST_KEY, SALT);
    expect(keys.headerKey.toString("hex")).toBe("7717bb99fd3c947b35c23796a961ff6a3afe649ebd5cf3a3f54eb19ad7a46520");
    expect(keys.payloadKey.toString("hex")).toBe(PAYLOAD_KEY);
  });

  test("a different salt gives different file keys", () => {
    const other = deriveFileKeysV1(TEST_KEY, Buffer.alloc(32, 7));
    expect(other.payloadKey.toString("hex")).not.toBe(PAYLOAD_KEY);
  });
});

describe("byte layout (version 1)", () => {
  test("nonce is 3 zero bytes, the u64 big-endian index, then the last-chunk flag", () => {
    expect(buildNonce(0, 0).toString("hex")).toBe("000000000000000000000000");
    expect(buildNonce(1, 1).toString("hex")).toBe("000000000000000000000101");
    expect(buildNonce(2 ** 32 + 5, 1).toString("hex")).toBe("000000" + "0000000100000005" + "01");
  });

  test("frame header is the u64 index, the flag, and the u32 plaintext length, big-endian", () => {
    expect(buildFrameHeader(2 ** 32 + 5, 1, 1048576).toString("hex")).toBe("00000001000000050100100000");
  });

  test("header bytes for fixed inputs are pinned, MAC included", () => {
    const { bytes, payloadKey } = encodeHeaderV1({
      masterKey: TEST_KEY,
      compression: "zstd",
      payloadKind: "mongodump-archive",
      chunkSize: 1048576,
      createdAt: new Date("2026-01-02T03:04:05.678Z"),
      salt: SALT,
    });
    expect(bytes.toString("hex")).toBe(
      "8944425641554c54" + // magic
        "0001" + // version
        "02" + // compression zstd
        "01" + // payload kind mongodump-archive
        "00100000" + // chunk size 1 MiB
        "0000019b7ca98f2e" + // created-at ms
        "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f" + // salt
        "2deacbd61cb59e47db556f754d6d86ae" + // key id
        "76ab640d7893508fb78e67685c328800a189c7405dac2f80684bf846b8d46f1a", // HMAC
    );
    expect(payloadKey.toString("hex")).toBe(PAYLOAD_KEY);
    expect(openHeader(bytes, TEST_KEY).header.createdAt.toISOString()).toBe("2026-01-02T03:04:05.678Z");
  });

  test("sealed chunks for fixed inputs are pinned", () => {
    const key = Buffer.from(PAYLOAD_KEY, "hex");
    const first = Buffer.concat(sealChunk(key, 0, false, [Buffer.from("dbvault")]));
    const last = Buffer.concat(sealChunk(key, 1, true, [Buffer.from("dbvault")]));
    expect(first.toString("hex")).toBe("00000000000000000000000007" + "be078c41ccf53a" + "df7cead9a00b870916f27dd4a50141ab");
    expect(last.toString("hex")).toBe("00000000000000010100000007" + "26c3e7c1322c09" + "b212c7585dfe1f0d0a149a6c463d7792");
  });

  test("a chunk opens only with its own index and flag", () => {
    const key = Buffer.from(PAYLOAD_KEY, "hex");
    const [frameHeader, ciphertext, tag] = sealChunk(key, 3, false, [Buffer.from("payload")]);
    const body = Buffer.concat([ciphertext!, tag!]);
    expect(openChunk(key, buildNonce(3, 0), frameHeader!, body)?.toString()).toBe("payload");
    expect(openChunk(key, buildNonce(4, 0), frameHeader!, body)).toBeUndefined();
    expect(openChunk(key, buildNonce(3, 1), frameHeader!, body)).toBeUndefined();
  });
});
