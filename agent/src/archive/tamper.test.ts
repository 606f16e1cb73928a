// Every way a file can be damaged or misused is detected and named by its own error.
import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { pipeline } from "node:stream/promises";
import { captureDecryptError, encryptForTest, flipBit, locateFrames, makePayload, OTHER_TEST_KEY, readPieces, TEST_KEY } from "./archive-test-helpers.ts";
import { createDecryptStream } from "./decrypt-stream.ts";
import {
  CorruptChunkError,
  HeaderTamperedError,
  NotAnArchiveError,
  ReorderedChunksError,
  TrailingDataError,
  TruncatedArchiveError,
  UnsupportedCompressionError,
  UnsupportedPayloadKindError,
  UnsupportedVersionError,
  WrongKeyError,
} from "./errors.ts";
import { ArchiveWriter, resolveEncryptOptions } from "./archive-writer.ts";
import { DecompressionError } from "./errors.ts";
import { readArchiveHeader } from "./header.ts";
import { inspectArchive } from "./inspect.ts";
import { deriveFileKeysV1, deriveKeyId, encodeMasterKey } from "./keys.ts";

const CHUNK = 64;
const PLAINTEXT = makePayload(CHUNK * 5 + 10, 42); // 6 chunks, the last one short
// This file pins version 1's header and its damage; tamper-v2.test.ts covers version 2's.
const file = await encryptForTest(PLAINTEXT, { formatVersion: 1 });
const frames = locateFrames(file);

// Rewrites header bytes and recomputes a valid MAC: what only a key holder (a buggy or newer
// writer) could produce.
function resealHeader(bytes: Buffer, edit: (header: Buffer) => void): Buffer {
  const copy = Buffer.from(bytes);
  edit(copy);
  const { headerKey } = deriveFileKeysV1(TEST_KEY, copy.subarray(24, 56));
  createHmac("sha256", headerKey).update(copy.subarray(0, 72)).digest().copy(copy, 72);
  return copy;
}

describe("wrong key", () => {
  test("is reported with both key ids and never the key itself", async () => {
    const error = await captureDecryptError(file, OTHER_TEST_KEY);
    expect(error).toBeInstanceOf(WrongKeyError);
    expect((error as WrongKeyError).code).toBe("ARCHIVE_WRONG_KEY");
    expect(error.message).toContain(deriveKeyId(TEST_KEY));
    expect(error.message).toContain(deriveKeyId(OTHER_TEST_KEY));
    for (const key of [TEST_KEY, OTHER_TEST_KEY]) {
      expect(error.message).not.toContain(key.toString("hex").slice(0, 16));
      expect(error.message).not.toContain(encodeMasterKey(key).slice(6, 20));
    }
  });
});

describe("header damage: every single bit flip in the 104-byte header is caught and named", () => {
  test.each(Array.from({ length: 104 }, (_, offset) => offset))("byte %d", async (offset) => {
    const error = await captureDecryptError(flipBit(file, offset, offset % 8));
    if (offset < 8) expect(error).toBeInstanceOf(NotAnArchiveError);
    else if (offset < 10) expect(error).toBeInstanceOf(UnsupportedVersionError);
    else if (offset >= 56 && offset < 72) expect(error).toBeInstanceOf(WrongKeyError);
    else expect(error).toBeInstanceOf(HeaderTamperedError);
  });
});

describe("not a dbvault file, or a version or value this build does not know", () => {
  test("bad magic: a plain mongodump archive is refused as not a dbvault file", async () => {
    const mongodump = Buffer.from("6de299810000000000", "hex");
    const error = await captureDecryptError(Buffer.concat([mongodump, file]));
    expect(error).toBeInstanceOf(NotAnArchiveError);
    expect(error.message).toContain("not a dbvault backup file");
  });

  test("version 3 is refused with the version number and an upgrade hint", async () => {
    const v3 = Buffer.from(file);
    v3.writeUInt16BE(3, 8);
    const error = await captureDecryptError(v3);
    expect(error).toBeInstanceOf(UnsupportedVersionError);
    expect((error as UnsupportedVersionError).version).toBe(3);
    expect(error.message).toContain("upgrade");
    expect(() => readArchiveHeader(v3)).toThrow(UnsupportedVersionError);
  });

  test("an authenticated but unknown compression value is reported as unsupported", async () => {
    const lz4 = resealHeader(file, (h) => h.writeUInt8(7, 10));
    const error = await captureDecryptError(lz4);
    expect(error).toBeInstanceOf(UnsupportedCompressionError);
    expect((error as UnsupportedCompressionError).value).toBe(7);
    expect(() => readArchiveHeader(lz4)).toThrow(UnsupportedCompressionError);
  });

  test("an authenticated but unknown payload kind is reported as unsupported", async () => {
    const error = await captureDecryptError(resealHeader(file, (h) => h.writeUInt8(9, 11)));
    expect(error).toBeInstanceOf(UnsupportedPayloadKindError);
  });
});

describe("chunk damage", () => {
  const cases: [string, number][] = [
    ["first", 0],
    ["middle", 3],
    ["last", frames.length - 1],
  ];
  for (const [name, index] of cases) {
    const frame = frames[index]!;
    const spots: [string, number][] = [
      ["frame index", frame.offset + 7],
      ["frame flag", frame.offset + 8],
      ["frame length", frame.offset + 12],
      ["ciphertext", frame.offset + 13 + 5],
      ["tag", frame.offset + frame.length - 1],
    ];
    for (const [spot, offset] of spots) {
      test(`a flipped bit in the ${spot} of the ${name} chunk is corruption at chunk ${index}`, async () => {
        const error = await captureDecryptError(flipBit(file, offset, 1));
        expect(error).toBeInstanceOf(CorruptChunkError);
        expect((error as CorruptChunkError).chunkIndex).toBe(index);
        expect(error.message).toContain(`chunk ${index}`);
      });
    }
  }

  test("no plaintext of the damaged chunk (or after it) is ever output", async () => {
    const damaged = flipBit(file, frames[2]!.offset + 20);
    for (const pieceSize of [10, 1000]) {
      const stream = createDecryptStream({ masterKey: TEST_KEY });
      const out: Buffer[] = [];
      stream.on("data", (part: Buffer) => out.push(part));
      const failure = await pipeline(readPieces(damaged, pieceSize), stream).catch((e) => e);
      expect(failure).toBeInstanceOf(CorruptChunkError);
      const output = Buffer.concat(out);
      // Fed in small pieces, exactly the two good chunks before it come out; never more.
      if (pieceSize === 10) expect(output.length).toBe(2 * CHUNK);
      expect(output.length).toBeLessThanOrEqual(2 * CHUNK);
      expect(output.equals(PLAINTEXT.subarray(0, output.length))).toBe(true);
    }
  });

  test("a chunk spliced in from another file under the same key is corruption", async () => {
    const other = await encryptForTest(makePayload(CHUNK * 5 + 10, 7));
    const spliced = Buffer.concat([
      file.subarray(0, frames[1]!.offset),
      other.subarray(frames[1]!.offset, frames[2]!.offset),
      file.subarray(frames[2]!.offset),
    ]);
    const error = await captureDecryptError(spliced);
    expect(error).toBeInstanceOf(CorruptChunkError);
    expect((error as CorruptChunkError).chunkIndex).toBe(1);
  });
});

describe("damage the length field could disguise", () => {
  test("a last-chunk length made larger reads as corruption, not truncation", async () => {
    const last = frames[frames.length - 1]!;
    const error = await captureDecryptError(flipBit(file, last.offset + 12, 2)); // 10 -> 14
    expect(error).toBeInstanceOf(CorruptChunkError);
    expect(error.message).toContain("frame header is damaged");
  });
});

describe("authenticated payload that does not decompress", () => {
  test("is reported as a decompression failure", async () => {
    const writer = new ArchiveWriter(resolveEncryptOptions({ masterKey: TEST_KEY, compression: "zstd", chunkSize: CHUNK }));
    const bogus = Buffer.concat([writer.headerBytes, ...writer.write(Buffer.from("this is not a zstd frame at all")), ...writer.end()]);
    const error = await captureDecryptError(bogus);
    expect(error).toBeInstanceOf(DecompressionError);
    expect(error.message).toContain("zstd");
  });
});

describe("key-less inspection", () => {
  test("describes an intact file", async () => {
    expect(await inspectArchive(readPieces(file, 33))).toMatchObject({
      chunkCount: 6,
      payloadBytes: PLAINTEXT.length,
      fileBytes: file.length,
      header: { keyId: deriveKeyId(TEST_KEY), chunkSize: CHUNK },
    });
  });

  test("finds truncation, trailing bytes and reordering without the key", async () => {
    const swapped = Buffer.from(file);
    file.copy(swapped, frames[1]!.offset, frames[2]!.offset, frames[3]!.offset);
    file.copy(swapped, frames[2]!.offset, frames[1]!.offset, frames[2]!.offset);
    const inspect = (bytes: Buffer) => inspectArchive([bytes]).catch((e) => e);
    expect(await inspect(file.subarray(0, frames[2]!.offset))).toBeInstanceOf(TruncatedArchiveError);
    expect(await inspect(Buffer.concat([file, Buffer.of(0)]))).toBeInstanceOf(TrailingDataError);
    expect(await inspect(swapped)).toBeInstanceOf(ReorderedChunksError);
    expect(await inspect(Buffer.from("PK\x03\x04 a zip file"))).toBeInstanceOf(NotAnArchiveError);
  });
});

describe("reordering", () => {
  const cut = (i: number) => file.subarray(frames[i]!.offset, frames[i]!.offset + frames[i]!.length);
  const assemble = (order: number[]) => Buffer.concat([file.subarray(0, 104), ...order.map((i) => cut(i))]);

  test("two swapped chunks are reported as reordering, not corruption", async () => {
    const error = await captureDecryptError(assemble([0, 2, 1, 3, 4, 5]));
    expect(error).toBeInstanceOf(ReorderedChunksError);
    expect(error).toMatchObject({ code: "ARCHIVE_CHUNKS_REORDERED", position: 1, foundChunkIndex: 2 });
  });

  test("a duplicated chunk and a dropped chunk are reported as reordering", async () => {
    expect(await captureDecryptError(assemble([0, 1, 1, 2, 3, 4, 5]))).toMatchObject({
      position: 2,
      foundChunkIndex: 1,
    });
    expect(await captureDecryptError(assemble([0, 1, 3, 4, 5]))).toMatchObject({
      position: 2,
      foundChunkIndex: 3,
    });
  });
});

describe("truncation and trailing data", () => {
  test("cut at a chunk boundary: truncated, after the last complete chunk", async () => {
    const error = await captureDecryptError(file.subarray(0, frames[3]!.offset));
    expect(error).toBeInstanceOf(TruncatedArchiveError);
    expect(error).toMatchObject({ at: "chunk-boundary", chunkIndex: 3 });
    expect(error.message).toContain("after chunk 2");
  });

  test("cut in the middle of a chunk (including the last one): truncated mid-chunk", async () => {
    for (const [cutAt, index] of [
      [frames[3]!.offset + 30, 3],
      [frames[3]!.offset + 5, 3],
      [file.length - 1, frames.length - 1],
    ]) {
      const error = await captureDecryptError(file.subarray(0, cutAt));
      expect(error).toBeInstanceOf(TruncatedArchiveError);
      expect(error).toMatchObject({ at: "mid-chunk", chunkIndex: index });
    }
  });

  test("cut inside the header, right after it, or an empty file: truncated", async () => {
    expect(await captureDecryptError(file.subarray(0, 50))).toMatchObject({ at: "header" });
    expect(await captureDecryptError(file.subarray(0, 5))).toMatchObject({ at: "header" });
    expect(await captureDecryptError(Buffer.alloc(0))).toBeInstanceOf(TruncatedArchiveError);
    const bare = await captureDecryptError(file.subarray(0, 104));
    expect(bare).toMatchObject({ at: "chunk-boundary", chunkIndex: 0 });
    expect(bare.message).toContain("before any chunk");
  });

  test("one appended byte, or a whole appended chunk, is trailing data", async () => {
    for (const extra of [Buffer.of(0), file.subarray(frames[1]!.offset, frames[2]!.offset)]) {
      const error = await captureDecryptError(Buffer.concat([file, extra]));
      expect(error).toBeInstanceOf(TrailingDataError);
      expect((error as TrailingDataError).lastChunkIndex).toBe(frames.length - 1);
    }
  });

  test("a lone final chunk of an empty payload cannot be stripped or extended", async () => {
    const empty = await encryptForTest(Buffer.alloc(0), { formatVersion: 1 });
    expect(empty.length).toBe(104 + 29);
    expect(await captureDecryptError(empty.subarray(0, 104))).toBeInstanceOf(TruncatedArchiveError);
    expect(await captureDecryptError(Buffer.concat([empty, Buffer.of(1)]))).toBeInstanceOf(TrailingDataError);
  });
});

describe("the header promise", () => {
  test("rejects with the same typed error when the header is bad", async () => {
    const stream = createDecryptStream({ masterKey: OTHER_TEST_KEY });
    const failure = pipeline(readPieces(file, 50), stream).catch((e) => e);
    expect(await stream.header.catch((e) => e)).toBeInstanceOf(WrongKeyError);
    expect(await failure).toBeInstanceOf(WrongKeyError);
  });
});
