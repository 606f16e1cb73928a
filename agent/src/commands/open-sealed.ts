// The hot path of `decrypt`: one frame read at a time (with read(2) for a file), opened where
// it lies and written with one writev(2); a compressed payload goes through the decompressor.
// Measured against age -d by bench/seal-cli.ts.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  type ArchiveHeader,
  ArchiveReader,
  createDecompressor,
  createMemoryPacer,
  DecompressionError,
  FRAME_HEADER_LENGTH,
  type MasterKeys,
  TAG_LENGTH,
} from "../archive/index.ts";
import { FILE_COMMAND_MEMORY_MARGIN, type InputFile, type WriteOut } from "./files.ts";

// The version 1 header's length: reading it alone first aligns the following reads on frames.
const FIRST_READ = 104;

/**
 * Opens a `.enc.dbvault` file into its plaintext (decompressed), verifying every chunk before
 * writing it. Returns the header and the bytes written; throws the archive library's typed errors.
 */
export async function openSealedFile(options: {
  input: InputFile;
  write: WriteOut;
  masterKey: MasterKeys;
  identities?: readonly Uint8Array[];
}): Promise<{ header: ArchiveHeader; bytes: number }> {
  const reader = new ArchiveReader(options.masterKey, options.identities);
  let bytes = 0;
  async function* payload(): AsyncGenerator<Uint8Array[]> {
    // Reads the size of one whole frame at a time, so a frame usually lies in one read and is
    // opened where it lies (the frame reader copies only frames split across reads).
    let buffer = Buffer.allocUnsafe(FIRST_READ);
    const pacer = createMemoryPacer(undefined, FILE_COMMAND_MEMORY_MARGIN);
    for (;;) {
      const header = reader.header;
      const want = header ? FRAME_HEADER_LENGTH + header.chunkSize + TAG_LENGTH : FIRST_READ;
      if (buffer.length < want) buffer = Buffer.allocUnsafe(want);
      const got = options.input.readInto(buffer, 0, want);
      const n = typeof got === "number" ? got : await got;
      if (n === 0) break;
      pacer.note(n);
      const pieces = reader.write(buffer.subarray(0, n));
      if (pieces.length > 0) yield pieces;
    }
    reader.end();
  }
  const writeAll = async (pieces: readonly Uint8Array[]) => {
    for (const piece of pieces) bytes += piece.length;
    await options.write(pieces);
  };
  const source = payload();
  const first = await source.next();
  const header = reader.header!;
  const decompressor = header ? createDecompressor(header.compression) : undefined;
  if (!decompressor) {
    if (!first.done) await writeAll(first.value);
    for await (const pieces of source) await writeAll(pieces);
    return { header, bytes };
  }
  // Failures of the file or the output pass through as they are; any other is the decompressor's.
  const own = new Set<unknown>();
  async function* all(): AsyncGenerator<Uint8Array> {
    try {
      if (!first.done) yield* first.value;
      for await (const pieces of source) yield* pieces;
    } catch (error) {
      own.add(error);
      throw error;
    }
  }
  try {
    await pipeline(Readable.from(all()), decompressor, async (plain: AsyncIterable<Uint8Array>) => {
      for await (const chunk of plain) {
        try {
          await writeAll([chunk]);
        } catch (error) {
          own.add(error);
          throw error;
        }
      }
    });
  } catch (error) {
    throw own.has(error) ? error : new DecompressionError(header.compression, error as Error);
  }
  return { header, bytes };
}
