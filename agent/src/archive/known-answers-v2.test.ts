// Known answers of format version 2, cross-checked with an independent implementation (Python's
// hmac and `cryptography` AESGCM, the reference decoder of docs/archive-format.md) and repeated
// there. If one fails, the code no longer reads the version 2 files customers have: fix the code.
import { describe, expect, test } from "bun:test";
import { TEST_KEY } from "./archive-test-helpers.ts";
import { encodeHeaderV2, openHeaderV2 } from "./header-v2.ts";
import { deriveFileKeysV2 } from "./key-wrap.ts";

const DATA_KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => 0x60 + i));
const WRAP_SALT = Buffer.from(Array.from({ length: 32 }, (_, i) => 0x80 + i));
const HEADER_KEY = "cc9c180b1f294393be28d87902b51877777d5a23e04a92b6d1cea641cbfa9228";
const PAYLOAD_KEY = "218ed2e2d0b0a11c1c3a30af70a20aa75af33eb70ce1798192c04757f93b4b1d";

describe("format version 2", () => {
  test("header and payload keys derive from the data key alone", () => {
    const keys = deriveFileKeysV2(DATA_KEY);
    expect(keys.headerKey.toString("hex")).toBe(HEADER_KEY);
    expect(keys.payloadKey.toString("hex")).toBe(PAYLOAD_KEY);
  });

  test("header bytes for fixed inputs are pinned, wrapped key and MAC included", () => {
    const { bytes, payloadKey } = encodeHeaderV2({
      masterKey: TEST_KEY,
      compression: "zstd",
      payloadKind: "mongodump-archive",
      chunkSize: 1048576,
      createdAt: new Date("2026-01-02T03:04:05.678Z"),
      dataKey: DATA_KEY,
      wrapSalt: WRAP_SALT,
    });
    expect(bytes.toString("hex")).toBe(
      "8944425641554c54" + // magic
        "0002" + // version
        "009e" + // header length 158
        "02" + // compression zstd
        "01" + // payload kind mongodump-archive
        "00100000" + // chunk size 1 MiB
        "0000019b7ca98f2e" + // created-at ms
        "01" + // one key stanza
        "01" + // wrap kind: master key
        "0060" + // stanza body length 96
        "2deacbd61cb59e47db556f754d6d86ae" + // key id of the wrapping master key
        "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f" + // wrap salt
        "6b6ce5bd7fd7ef012e38918a5fbcffa6e133c0d6368b695d86af011c4df45c43" + // wrapped data key
        "b5a89006e4d06e17fe6c2b8cc5024865" + // its GCM tag
        "402442cf998527e5aa56446ec2596fbf425055fcb519434916cebecd54e9304f", // header HMAC
    );
    expect(payloadKey.toString("hex")).toBe(PAYLOAD_KEY);
    const opened = openHeaderV2(bytes, [TEST_KEY]);
    expect(opened.dataKey.equals(DATA_KEY)).toBe(true);
    expect(opened.header.createdAt.toISOString()).toBe("2026-01-02T03:04:05.678Z");
  });
});
