import { Duplex, type Transform } from "node:stream";
import {
  ArchiveWriter,
  type EncryptOptions,
  resolveEncryptOptions,
} from "./archive-writer.ts";
import { createCompressor } from "./compression.ts";
import { type ArchiveHeader, FRAME_HEADER_LENGTH, TAG_LENGTH } from "./format.ts";
import { readArchiveHeader } from "./header.ts";

// Input is gathered into blocks of this size before it reaches the compressor: each zlib write
// is a round trip to a worker thread, and 64 KiB pipe reads make that overhead dominate.
const COMPRESSOR_INPUT_BLOCK = 1024 * 1024;

/**
 * Plaintext in, `.enc.dbvault` bytes out: compresses, cuts into chunks, seals each chunk.
 * Memory stays around two chunks plus the compressor's window, whatever the input size.
 */
export class EncryptStream extends Duplex {
  /** The header written at the start of the file (key id, salt, chunk size, ...). */
  readonly header: ArchiveHeader;
  readonly #writer: ArchiveWriter;
  readonly #compressor: Transform | undefined;
  #staging: Buffer[] = [];
  #stagedBytes = 0;
  #resumeWrite: (() => void) | undefined;
  #finalCallback: ((error?: Error | null) => void) | undefined;

  constructor(options: EncryptOptions) {
    const resolved = resolveEncryptOptions(options);
    const frameSize = FRAME_HEADER_LENGTH + resolved.chunkSize + TAG_LENGTH;
    super({ readableHighWaterMark: frameSize, writableHighWaterMark: COMPRESSOR_INPUT_BLOCK });
    this.#writer = new ArchiveWriter(resolved);
    this.header = readArchiveHeader(this.#writer.headerBytes);
    this.push(this.#writer.headerBytes);
    this.#compressor = createCompressor(resolved.compression);
    this.#compressor?.on("data", (data: Buffer) => this.#sealCompressed(data));
    this.#compressor?.on("end", () => this.#finishFile());
    this.#compressor?.on("error", (error) => this.destroy(error));
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (e?: Error | null) => void) {
    const compressor = this.#compressor;
    if (!compressor) {
      this.#pushThen(this.#writer.write(chunk), callback);
      return;
    }
    this.#staging.push(chunk);
    this.#stagedBytes += chunk.length;
    if (this.#stagedBytes < COMPRESSOR_INPUT_BLOCK) return callback();
    if (this.#flushStaging()) callback();
    else compressor.once("drain", () => callback());
  }

  override _final(callback: (error?: Error | null) => void) {
    if (!this.#compressor) {
      this.#pushAll(this.#writer.end());
      this.push(null);
      callback();
      return;
    }
    this.#finalCallback = callback;
    this.#flushStaging();
    this.#compressor.end();
  }

  override _read() {
    const resume = this.#resumeWrite;
    this.#resumeWrite = undefined;
    resume?.();
    this.#compressor?.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void) {
    this.#compressor?.destroy();
    callback(error);
  }

  #flushStaging(): boolean {
    if (this.#stagedBytes === 0) return true;
    const block =
      this.#staging.length === 1 ? this.#staging[0]! : Buffer.concat(this.#staging, this.#stagedBytes);
    this.#staging = [];
    this.#stagedBytes = 0;
    return this.#compressor!.write(block);
  }

  #sealCompressed(data: Buffer) {
    if (!this.#pushAll(this.#writer.write(data))) this.#compressor!.pause();
  }

  #finishFile() {
    this.#pushAll(this.#writer.end());
    this.push(null);
    this.#finalCallback?.();
  }

  #pushThen(frames: Buffer[], callback: () => void) {
    if (this.#pushAll(frames)) callback();
    else this.#resumeWrite = callback;
  }

  #pushAll(frames: Buffer[]): boolean {
    let accepting = true;
    for (const frame of frames) accepting = this.push(frame);
    return accepting;
  }
}

/** Returns a Duplex turning plaintext into a `.enc.dbvault` file; throws InvalidOptionsError or InvalidKeyError. */
export function createEncryptStream(options: EncryptOptions): EncryptStream {
  return new EncryptStream(options);
}
