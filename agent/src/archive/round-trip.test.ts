import { describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { encryptForTest, makePayload, readPieces, TEST_KEY } from "./archive-test-helpers.ts";
import { decryptBuffer, decryptWebStream, encryptBuffer, encryptWebStream } from "./convenience.ts";
import { createDecryptStream } from "./decrypt-stream.ts";
import { createEncryptStream } from "./encrypt-stream.ts";
import { InvalidKeyError, InvalidOptionsError } from "./errors.ts";
import type { Compression } from "./format.ts";
import { readArchiveHeader } from "./header.ts";
import { inspectArchive } from "./inspect.ts";
import { deriveKeyId } from "./keys.ts";

const CHUNK = 64;

describe("payload sizes around chunk boundaries (no compression, 64-byte chunks)", () => {
  const cases: [number, number][] = [
    [0, 1],
    [1, 1],
    [CHUNK - 1, 1],
    [CHUNK, 1],
    [CHUNK + 1, 2],
    [3 * CHUNK, 3],
    [3 * CHUNK + 1, 4],
    [50 * CHUNK + 17, 51],
  ];
  for (const [size, chunks] of cases) {
    test(`${size} bytes round-trip in ${chunks} chunk(s), the last one flagged last`, async () => {
      const plaintext = makePayload(size, size + 1);
      const file = await encryptForTest(plaintext);
      const inspection = await inspectArchive([file]);
      expect(inspection.chunkCount).toBe(chunks);
      expect(inspection.payloadBytes).toBe(size);
      // version 2 header with one master-key stanza + per chunk: 13-byte frame header + data + 16-byte tag
      expect(file.length).toBe(158 + chunks * 29 + size);
      const { plaintext: back } = await decryptBuffer(file, { masterKey: TEST_KEY });
      expect(back.equals(plaintext)).toBe(true);
    });
  }

  test("the default 1 MiB chunk size round-trips at 1 MiB - 1, 1 MiB and 1 MiB + 1", async () => {
    for (const size of [1048575, 1048576, 1048577]) {
      const plaintext = makePayload(size, 9);
      const file = await encryptForTest(plaintext, { chunkSize: undefined });
      expect((await inspectArchive([file])).chunkCount).toBe(size > 1048576 ? 2 : 1);
      const { plaintext: back } = await decryptBuffer(file, { masterKey: TEST_KEY });
      expect(back.equals(plaintext)).toBe(true);
    }
  });
});

describe("compressions", () => {
  const text = Buffer.from(Array.from({ length: 2000 }, (_, i) => `{"_id":${i},"name":"user ${i % 37}","ok":true}\n`).join(""));
  for (const compression of ["zstd", "gzip", "none"] as Compression[]) {
    test(`${compression} round-trips text, random and empty payloads`, async () => {
      for (const plaintext of [text, makePayload(5000, 3), Buffer.alloc(0)]) {
        const file = await encryptForTest(plaintext, { compression, chunkSize: 256 });
        const { header, plaintext: back } = await decryptBuffer(file, { masterKey: TEST_KEY });
        expect(header.compression).toBe(compression);
        expect(back.equals(plaintext)).toBe(true);
      }
    });
  }

  test("zstd is the default and actually shrinks compressible data", async () => {
    const file = await encryptBuffer(text, { masterKey: TEST_KEY });
    expect(readArchiveHeader(file).compression).toBe("zstd");
    expect(file.length).toBeLessThan(text.length / 4);
  });
});

describe("header", () => {
  test("records every option, readable without the key", async () => {
    const createdAt = new Date("2025-06-30T12:00:00.123Z");
    const file = await encryptForTest(Buffer.from("x"), { compression: "gzip", chunkSize: 4096, createdAt });
    expect(readArchiveHeader(file)).toEqual({
      version: 2,
      compression: "gzip",
      payloadKind: "mongodump-archive",
      chunkSize: 4096,
      createdAt,
      keyId: deriveKeyId(TEST_KEY),
      salt: expect.stringMatching(/^[0-9a-f]{64}$/),
      headerLength: 158,
    });
  });

  test("an oplog slice is its own payload kind (0x02 at byte 13 of a version 2 header), read back with the key", async () => {
    const entries = makePayload(700, 5);
    const file = await encryptBuffer(entries, { masterKey: TEST_KEY, payloadKind: "oplog-slice" });
    expect(file[13]).toBe(0x02);
    expect(readArchiveHeader(file).payloadKind).toBe("oplog-slice");
    const { header, plaintext } = await decryptBuffer(file, { masterKey: TEST_KEY });
    expect(header.payloadKind).toBe("oplog-slice");
    expect(plaintext.equals(entries)).toBe(true);
  });

  test("every file gets a fresh data key, so equal inputs give unrelated ciphertexts", async () => {
    const plaintext = makePayload(300);
    const a = await encryptForTest(plaintext);
    const b = await encryptForTest(plaintext);
    // Wrap salt and wrapped key (bytes 46-125 of the stanza), then the chunks.
    expect(a.subarray(46, 126).equals(b.subarray(46, 126))).toBe(false);
    expect(a.subarray(200, 240).equals(b.subarray(200, 240))).toBe(false);
  });

  test("the decrypt stream announces the header before any plaintext", async () => {
    const file = await encryptForTest(makePayload(1000));
    const stream = createDecryptStream({ masterKey: TEST_KEY });
    const events: string[] = [];
    stream.on("header", () => events.push("header"));
    stream.on("data", () => events.push("data"));
    await pipeline(readPieces(file, 7), stream);
    expect(events[0]).toBe("header");
    expect(events.length).toBeGreaterThan(1);
    expect((await stream.header).chunkSize).toBe(CHUNK);
  });
});

describe("streaming input in odd pieces", () => {
  for (const compression of ["zstd", "none"] as Compression[]) {
    test(`${compression}: 1-byte writes in, 7-byte reads out, same bytes back`, async () => {
      const plaintext = makePayload(3000, 5);
      const encrypt = createEncryptStream({ masterKey: TEST_KEY, compression, chunkSize: CHUNK });
      const fileParts: Buffer[] = [];
      encrypt.on("data", (part: Buffer) => fileParts.push(part));
      await pipeline(readPieces(plaintext, 1), encrypt);
      const decrypt = createDecryptStream({ masterKey: TEST_KEY });
      const out: Buffer[] = [];
      decrypt.on("data", (part: Buffer) => out.push(part));
      await pipeline(readPieces(Buffer.concat(fileParts), 7), decrypt);
      expect(Buffer.concat(out).equals(plaintext)).toBe(true);
    });
  }
});

describe("web streams", () => {
  test("a web ReadableStream encrypts and decrypts through the helpers", async () => {
    const plaintext = makePayload(200_000, 11);
    const source = Readable.toWeb(readPieces(plaintext, 10_000)) as unknown as ReadableStream<Uint8Array>;
    const encrypted = await new Response(encryptWebStream(source, { masterKey: TEST_KEY })).arrayBuffer();
    const { header, plaintext: out } = decryptWebStream(new Response(encrypted).body!, {
      masterKey: TEST_KEY,
    });
    const back = Buffer.from(await new Response(out).arrayBuffer());
    expect(back.equals(plaintext)).toBe(true);
    expect((await header).compression).toBe("zstd");
  });
});

describe("web streams, damaged input", () => {
  test("a corrupted file errors the web stream with the typed error", async () => {
    const file = await encryptForTest(makePayload(5000, 4), { chunkSize: 256 });
    file[500]! ^= 1;
    const { header, plaintext } = decryptWebStream(new Response(new Uint8Array(file)).body!, {
      masterKey: TEST_KEY,
    });
    const failure = await new Response(plaintext).arrayBuffer().catch((e) => e);
    expect(failure).toMatchObject({ code: "ARCHIVE_CHUNK_CORRUPT", chunkIndex: 1 });
    expect((await header).chunkSize).toBe(256);
  });
});

describe("options", () => {
  test("out-of-range chunk sizes and bad keys are refused before any byte is written", () => {
    expect(() => createEncryptStream({ masterKey: TEST_KEY, chunkSize: 63 })).toThrow(InvalidOptionsError);
    expect(() => createEncryptStream({ masterKey: TEST_KEY, chunkSize: 16 * 1024 * 1024 + 1 })).toThrow(InvalidOptionsError);
    expect(() => createEncryptStream({ masterKey: Buffer.alloc(31) })).toThrow(InvalidKeyError);
    expect(() => createDecryptStream({ masterKey: Buffer.alloc(33) })).toThrow(InvalidKeyError);
    expect(() => createEncryptStream({ masterKey: TEST_KEY, compression: "lz4" as Compression })).toThrow(InvalidOptionsError);
  });
});
