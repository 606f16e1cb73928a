// The hot paths of `encrypt` and `decrypt`, synchronous wherever the input allows: a block is
// read into a buffer, parsed or opened, sealed and written before the next read, with no stream
// stage in between. Measured against age and zstd by bench/seal-cli.ts.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import {
  type ArchiveHeader,
  ArchiveReader,
  ArchiveWriter,
  type Compression,
  createBlockCompressor,
  createDecompressor,
  DecompressionError,
  readArchiveHeader,
  resolveEncryptOptions,
  TAG_LENGTH,
  FRAME_HEADER_LENGTH,
} from "../archive/index.ts";
import { ArchiveScanner } from "../dump/mongodump-archive/index.ts";
import { type InputFile, streamInput } from "./files.ts";

// The version 1 header's length: reading it alone first aligns the following reads on frames.
const FIRST_READ = 104;

type WriteOut = (buffers: readonly Uint8Array[]) => void | Promise<void>;

export interface SealResult {
  header: ArchiveHeader;
  documents: number;
  namespaces: number;
  /** Bytes of the .enc.dbvault file written. */
  bytes: number;
}

/**
 * Seals a mongodump archive (gunzipped first when it is gzip-compressed) into `.enc.dbvault`
 * bytes, checking the archive on the way (structure and every CRC-64). Throws the archive's
 * MongodumpArchiveError, the input's or output's error, or a compression failure.
 */
export async function sealArchive(options: {
  input: InputFile;
  write: WriteOut;
  masterKey: Uint8Array;
  compression: Compression;
  onGzip: () => void;
}): Promise<SealResult> {
  const resolved = resolveEncryptOptions({ masterKey: options.masterKey, compression: options.compression });
  const writer = new ArchiveWriter(resolved);
  const size = resolved.chunkSize;
  let bytes = 0;
  const emit = (frames: readonly Uint8Array[]) => {
    for (const frame of frames) bytes += frame.length;
    return options.write(frames);
  };
  let documents = 0;
  let namespaces = 0;
  const scanner = new ArchiveScanner({ documents: false }, (event) => {
    if (event.kind !== "namespace-end") return;
    namespaces++;
    documents += event.documentCount;
  });
  const compressor =
    resolved.compression === "none"
      ? undefined
      : createBlockCompressor({ compression: resolved.compression, onOutput: (block) => emit(writer.write(block)) });
  try {
    await emit([writer.headerBytes]);
    // Without compression the chunks are read straight into two alternating buffers that the
    // writer seals in place (a full chunk is sealed once the next byte exists: its last flag).
    const buffers = [Buffer.allocUnsafe(size), compressor ? Buffer.alloc(0) : Buffer.allocUnsafe(size)];
    let current = 0;
    let filled = 0;
    const first = await options.input.readInto(buffers[0]!, 0, size);
    const gzipped = first >= 2 && buffers[0]![0] === 0x1f && buffers[0]![1] === 0x8b;
    if (gzipped) options.onGzip();
    const input = gzipped ? gunzipInput(options.input, buffers[0]!.subarray(0, first)) : options.input;
    let n = gzipped ? await input.readInto(buffers[0]!, 0, size) : first;
    while (n > 0) {
      const buffer = buffers[current]!;
      const piece = buffer.subarray(filled, filled + n);
      scanner.write(piece);
      if (compressor) {
        const room = compressor.write(piece);
        if (room) await room;
      } else {
        filled += n;
        if (filled === size) {
          const written = emit(writer.write(buffer));
          if (written) await written;
          current ^= 1;
          filled = 0;
        }
      }
      const next = input.readInto(buffers[current]!, filled, size - filled);
      n = typeof next === "number" ? next : await next;
    }
    scanner.end();
    if (compressor) await compressor.end();
    else if (filled > 0) await emit(writer.write(buffers[current]!.subarray(0, filled)));
    await emit(writer.end());
    return { header: readArchiveHeader(writer.headerBytes), documents, namespaces, bytes };
  } finally {
    compressor?.destroy();
  }
}

// mongodump --gzip archives: the bytes already read, then the rest, through one gunzip.
function gunzipInput(input: InputFile, head: Uint8Array): InputFile {
  async function* compressed(): AsyncGenerator<Uint8Array> {
    yield Buffer.from(head);
    for (;;) {
      const block = Buffer.allocUnsafe(1024 * 1024);
      const n = await input.readInto(block, 0, block.length);
      if (n === 0) return;
      yield block.subarray(0, n);
    }
  }
  return streamInput(Readable.from(compressed()).pipe(createGunzip()), input.label);
}

/**
 * Opens a `.enc.dbvault` file into its plaintext (decompressed), verifying every chunk before
 * writing it. Returns the header and the bytes written; throws the archive library's typed errors.
 */
export async function openSealedFile(options: {
  input: InputFile;
  write: WriteOut;
  masterKey: Uint8Array;
}): Promise<{ header: ArchiveHeader; bytes: number }> {
  const reader = new ArchiveReader(options.masterKey);
  let bytes = 0;
  async function* payload(): AsyncGenerator<Uint8Array[]> {
    // Reads the size of one whole frame at a time, so a frame usually lies in one read and is
    // opened where it lies (the frame reader copies only frames split across reads).
    let buffer = Buffer.allocUnsafe(FIRST_READ);
    for (;;) {
      const header = reader.header;
      const want = header ? FRAME_HEADER_LENGTH + header.chunkSize + TAG_LENGTH : FIRST_READ;
      if (buffer.length < want) buffer = Buffer.allocUnsafe(want);
      const got = options.input.readInto(buffer, 0, want);
      const n = typeof got === "number" ? got : await got;
      if (n === 0) break;
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
