// The hot path of `encrypt`, synchronous wherever the input allows: a block is read into a
// buffer, parsed and sealed and written before the next read, with no stream stage in between
// (decrypt's is open-sealed.ts). Measured against age and zstd by bench/seal-cli.ts.
import { availableParallelism } from "node:os";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import {
  type ArchiveHeader,
  ArchiveWriter,
  type Compression,
  createBlockCompressor,
  createMemoryPacer,
  readArchiveHeader,
  resolveEncryptOptions,
} from "../archive/index.ts";
import { CIPHER_OUTPUT_SPARE_BYTES, releaseWholeBuffer } from "../../../protocol/release-buffer";
import { ArchiveScanner, loadNativeCrc64, startCrcOffload } from "../dump/mongodump-archive/index.ts";
import { FILE_COMMAND_MEMORY_MARGIN, type InputFile, streamInput, type WriteOut } from "./files.ts";

// Ciphertext (the writer's own cipher.update output, never a shared view) of at least this size
// is freed as soon as it is written (protocol/release-buffer.ts): left to the collector, 1 GiB of
// it was faulted in page by page (265,000 faults, +0.4 s of system time).
const RELEASE_MIN_BYTES = 64 * 1024;
// Input slots when the CRC runs on its own thread (see the loop).
const OFFLOAD_SLOTS = 4;

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
  /** Where the output can be written behind (OutputFile.writeBehind): used instead of `write`. */
  writeBehind?: (buffers: readonly Uint8Array[]) => Promise<void>;
  /** The master key, or a write-only agent's recipient (readSealingKey). */
  sealingKey: { masterKey: Uint8Array } | { recipient: Uint8Array };
  compression: Compression;
  onGzip: () => void;
}): Promise<SealResult> {
  const resolved = resolveEncryptOptions({ ...options.sealingKey, compression: options.compression });
  const writer = new ArchiveWriter(resolved);
  const size = resolved.chunkSize;
  let bytes = 0;
  const release = (frames: readonly Uint8Array[]) => {
    for (const frame of frames) releaseWholeBuffer(frame, RELEASE_MIN_BYTES, CIPHER_OUTPUT_SPARE_BYTES);
  };
  // Into a file, frames are written behind: one writev on a pool thread while this thread reads
  // and seals the next chunk (on two cores the kernel's copy into the file, ~0.45 s per GiB, then
  // overlaps everything else). Each emit waits for the write before it, so they stay in order and
  // at most one frame's buffers are held.
  let writing: Promise<void> | undefined;
  const writeBehind = options.writeBehind;
  const emit = (frames: readonly Uint8Array[]): void | Promise<void> => {
    for (const frame of frames) bytes += frame.length;
    if (writeBehind) {
      const start = () => {
        writing = writeBehind(frames).then(() => release(frames));
        writing.catch(() => undefined); // awaited by the next emit or at the end
      };
      return writing ? writing.then(start) : start();
    }
    const written = options.write(frames);
    if (!written) release(frames);
    return written;
  };
  let documents = 0;
  let namespaces = 0;
  // The system's CRC-64 (native-crc64.ts, ~0.15 s of CPU per GiB) runs here: a thread for it
  // would cost more in hand-offs than it saves. Without it, the table code's ~0.9 s per GiB runs
  // on a thread of its own (crc-offload.ts) over a ring of shared input slots when there is no
  // compression and a second core. With compression the compression thread sets the pace and a
  // CRC thread only competes with it (1 GiB, 2 cores: 1.56-1.69 s with it, 1.46-1.50 s without),
  // so the CRC stays here, as it does on one core.
  const offload = resolved.compression === "none" && availableParallelism() > 1 && !loadNativeCrc64() ? startCrcOffload(OFFLOAD_SLOTS, size) : undefined;
  const scanner = new ArchiveScanner({ documents: false, ...(offload ? { checksums: offload.checksums } : {}) }, (event) => {
    if (event.kind !== "namespace-end") return;
    namespaces++;
    documents += event.documentCount;
  });
  const compressor =
    resolved.compression === "none"
      ? undefined
      : createBlockCompressor({ compression: resolved.compression, onOutput: (block) => emit(writer.writeOwned(block)) });
  try {
    await emit([writer.headerBytes]);
    // Without compression the chunks are read straight into the slots, which the writer seals in
    // place (a full chunk is sealed once the next byte exists: its last flag), so at least three
    // slots turn: one being read, one held by the writer, one the CRC thread may still be reading.
    const buffers = offload?.slots ?? [Buffer.allocUnsafe(size), Buffer.allocUnsafe(compressor ? 0 : size)];
    let current = 0;
    let filled = 0;
    const first = await options.input.readInto(buffers[0]!, 0, size);
    const gzipped = first >= 2 && buffers[0]![0] === 0x1f && buffers[0]![1] === 0x8b;
    if (gzipped) options.onGzip();
    const input = gzipped ? gunzipInput(options.input, buffers[0]!.subarray(0, first)) : options.input;
    let n = gzipped ? await input.readInto(buffers[0]!, 0, size) : first;
    const pacer = createMemoryPacer(undefined, FILE_COMMAND_MEMORY_MARGIN);
    while (n > 0) {
      pacer.note(n);
      const buffer = buffers[current]!;
      const piece = buffer.subarray(filled, filled + n);
      scanner.write(piece);
      offload?.submit(current);
      if (compressor) {
        const room = compressor.write(piece);
        if (room) await room;
      } else {
        filled += n;
        if (filled === size) {
          const written = emit(writer.write(buffer));
          if (written) await written;
          current = (current + 1) % buffers.length;
          filled = 0;
        }
      }
      if (offload && filled === 0) offload.waitForSlot(current);
      const next = input.readInto(buffers[current]!, filled, size - filled);
      n = typeof next === "number" ? next : await next;
    }
    scanner.end();
    // Every checksum is in before the last chunk is sealed: a damaged archive never ends sealed.
    await offload?.finish();
    if (compressor) await compressor.end();
    else if (filled > 0) await emit(writer.write(buffers[current]!.subarray(0, filled)));
    await emit(writer.end());
    await writing;
    return { header: readArchiveHeader(writer.headerBytes), documents, namespaces, bytes };
  } finally {
    compressor?.destroy();
    offload?.close();
    // A write still running would otherwise meet a closed (or reused) descriptor.
    await writing?.catch(() => undefined);
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
