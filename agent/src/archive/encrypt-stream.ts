import { Duplex } from "node:stream";
import { ArchiveWriter, type EncryptOptions, resolveEncryptOptions } from "./archive-writer.ts";
import { type BlockCompressor, createBlockCompressor } from "./block-compressor.ts";
import { type ArchiveHeader, FRAME_HEADER_LENGTH, TAG_LENGTH } from "./format.ts";
import { readArchiveHeader } from "./header.ts";
import { createMemoryPacer } from "./memory-pacer.ts";

/** Options of the encrypting stream: the file's, plus how many threads compress. */
export interface EncryptStreamOptions extends EncryptOptions {
  /** Compression threads (0: on the calling thread); defaultCompressionThreads() unless told otherwise. The output is the same either way. */
  compressionThreads?: number;
}

/**
 * Plaintext in, `.enc.dbvault` bytes out: compresses (on worker threads), cuts into chunks,
 * seals each chunk. Memory stays around a few compression blocks and two chunks, whatever the
 * input size.
 */
export class EncryptStream extends Duplex {
  /** The header written at the start of the file (key id, salt, chunk size, ...). */
  readonly header: ArchiveHeader;
  readonly #writer: ArchiveWriter;
  readonly #compressor: BlockCompressor | undefined;
  readonly #pacer = createMemoryPacer();
  // Every writer waiting for the reader to catch up: several can wait at once (a dump reading
  // two collections writes from both), and each is released by the next read or the stream's end.
  readonly #waitingWriters: (() => void)[] = [];

  constructor(options: EncryptStreamOptions) {
    const resolved = resolveEncryptOptions(options);
    const frameSize = FRAME_HEADER_LENGTH + resolved.chunkSize + TAG_LENGTH;
    super({ readableHighWaterMark: frameSize, writableHighWaterMark: 1024 * 1024 });
    this.#writer = new ArchiveWriter(resolved);
    this.header = readArchiveHeader(this.#writer.headerBytes);
    this.push(this.#writer.headerBytes);
    if (resolved.compression !== "none") {
      this.#compressor = createBlockCompressor({
        compression: resolved.compression,
        ...(options.compressionThreads === undefined ? {} : { threads: options.compressionThreads }),
        onOutput: (block) => this.#seal(block, true),
      });
    }
  }

  /**
   * Takes plaintext without a stream hop: the bytes are copied (into a compression block, or a
   * chunk of their own) before this returns, so the caller may reuse its buffer. A returned
   * promise settles when there is room again. Use either this or `write`, then `end()` as usual.
   * The caller paces memory (the dump does, with its own margin: archive/memory-pacer.ts).
   * Throws once the stream failed or was destroyed.
   */
  writeCopied(bytes: Uint8Array): Promise<void> | undefined {
    if (this.destroyed) throw this.errored ?? new Error("the encrypt stream was destroyed");
    if (this.#compressor) return this.#compressor.write(bytes);
    return this.#seal(Buffer.from(bytes), true);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (e?: Error | null) => void) {
    this.#pacer.note(chunk.length);
    const compressor = this.#compressor;
    if (!compressor) {
      const waiting = this.#seal(chunk, false);
      if (waiting) waiting.then(() => callback(), callback);
      else callback();
      return;
    }
    let room: Promise<void> | undefined;
    try {
      room = compressor.write(chunk);
    } catch (error) {
      callback(error as Error);
      return;
    }
    if (room) room.then(() => callback(), callback);
    else callback();
  }

  override _final(callback: (error?: Error | null) => void) {
    const finish = () => {
      this.#pushAll(this.#writer.end());
      this.push(null);
      callback();
    };
    if (!this.#compressor) return finish();
    this.#compressor.end().then(finish, callback);
  }

  override _read() {
    this.#releaseWriters();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void) {
    this.#compressor?.destroy();
    this.#releaseWriters();
    callback(error);
  }

  #releaseWriters(): void {
    for (const resume of this.#waitingWriters.splice(0)) resume();
  }

  // Seals what is complete; returns a promise while the reader has not caught up. An owned
  // payload (a compressed block, a private copy) is freed once sealed.
  #seal(payload: Uint8Array, owned: boolean): Promise<void> | undefined {
    const frames = owned ? this.#writer.writeOwned(payload) : this.#writer.write(payload);
    if (this.#pushAll(frames) || this.destroyed) return undefined;
    return new Promise((resolve) => {
      this.#waitingWriters.push(resolve);
    });
  }

  #pushAll(frames: Buffer[]): boolean {
    let accepting = true;
    for (const frame of frames) accepting = this.push(frame);
    return accepting;
  }
}

/** Returns a Duplex turning plaintext into a `.enc.dbvault` file; throws InvalidOptionsError or InvalidKeyError. */
export function createEncryptStream(options: EncryptStreamOptions): EncryptStream {
  return new EncryptStream(options);
}
