import { Duplex, type Transform } from "node:stream";
import { ArchiveReader } from "./archive-reader.ts";
import { createDecompressor } from "./compression.ts";
import { DecompressionError } from "./errors.ts";
import { type ArchiveHeader, DEFAULT_CHUNK_SIZE } from "./format.ts";
import type { MasterKeys } from "./keys.ts";
import { createMemoryPacer } from "./memory-pacer.ts";

/** Options of decryption. */
export interface DecryptOptions {
  /**
   * The 32-byte master key the file was written with, or a keyring (the current key first, then
   * the older ones a rotation kept): the file's key id picks the key.
   */
  masterKey: MasterKeys;
  /** X25519 private keys ("identities") that open files sealed by a write-only agent. */
  identities?: readonly Uint8Array[];
}

/**
 * `.enc.dbvault` bytes in, decompressed plaintext out, verifying each chunk before releasing it.
 * The stream fails with a typed ArchiveError on the first problem; bytes already output came from
 * authenticated chunks in their right order, but only a stream that ends without error is whole.
 */
export class DecryptStream extends Duplex {
  /** Resolves with the authenticated header as soon as it is read; rejects if the stream fails first. */
  readonly header: Promise<ArchiveHeader>;
  readonly #reader: ArchiveReader;
  readonly #pacer = createMemoryPacer();
  #decompressor: Transform | undefined;
  #headerSettled = false;
  #resolveHeader!: (header: ArchiveHeader) => void;
  #rejectHeader!: (error: Error) => void;
  #resumeWrite: (() => void) | undefined;
  #finalCallback: ((error?: Error | null) => void) | undefined;

  constructor(options: DecryptOptions) {
    super({ readableHighWaterMark: DEFAULT_CHUNK_SIZE, writableHighWaterMark: DEFAULT_CHUNK_SIZE });
    this.#reader = new ArchiveReader(options.masterKey, options.identities);
    this.header = new Promise<ArchiveHeader>((resolve, reject) => {
      this.#resolveHeader = resolve;
      this.#rejectHeader = reject;
    });
    // The stream's 'error' event reports failures; nobody is obliged to await the header.
    this.header.catch(() => {});
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (e?: Error | null) => void) {
    this.#pacer.note(chunk.length);
    let payload: Buffer[];
    try {
      payload = this.#reader.write(chunk);
    } catch (error) {
      this.#failHeader(error as Error);
      callback(error as Error);
      return;
    }
    if (!this.#headerSettled && this.#reader.header) this.#startPayload(this.#reader.header);
    this.#deliver(payload, callback);
  }

  override _final(callback: (error?: Error | null) => void) {
    try {
      this.#reader.end();
    } catch (error) {
      this.#failHeader(error as Error);
      callback(error as Error);
      return;
    }
    if (!this.#decompressor) {
      this.push(null);
      callback();
      return;
    }
    this.#finalCallback = callback;
    this.#decompressor.end();
  }

  override _read() {
    const resume = this.#resumeWrite;
    this.#resumeWrite = undefined;
    resume?.();
    this.#decompressor?.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void) {
    this.#failHeader(error ?? new Error("decrypt stream was destroyed before its header was read"));
    this.#decompressor?.destroy();
    callback(error);
  }

  #startPayload(header: ArchiveHeader) {
    this.#headerSettled = true;
    const decompressor = createDecompressor(header.compression);
    if (decompressor) {
      decompressor.on("data", (data: Buffer) => {
        if (!this.push(data)) decompressor.pause();
      });
      decompressor.on("end", () => {
        this.push(null);
        this.#finalCallback?.();
      });
      decompressor.on("error", (error) => this.destroy(new DecompressionError(header.compression, error)));
      this.#decompressor = decompressor;
    }
    this.#resolveHeader(header);
    this.emit("header", header);
  }

  #deliver(payload: Buffer[], callback: () => void) {
    const decompressor = this.#decompressor;
    let accepting = true;
    if (!decompressor) {
      for (const piece of payload) accepting = this.push(piece);
      if (accepting) callback();
      else this.#resumeWrite = callback;
      return;
    }
    for (const piece of payload) accepting = decompressor.write(piece);
    if (accepting) callback();
    else decompressor.once("drain", () => callback());
  }

  // A header that was read and authenticated resolves even when a later chunk in the same
  // input piece fails: the header promise reports on the header only.
  #failHeader(error: Error) {
    if (this.#headerSettled) return;
    this.#headerSettled = true;
    const header = this.#reader.header;
    if (header) {
      this.#resolveHeader(header);
      this.emit("header", header);
    } else {
      this.#rejectHeader(error);
    }
  }
}

/** Returns a Duplex turning a `.enc.dbvault` file back into plaintext; throws InvalidKeyError on a bad key. */
export function createDecryptStream(options: DecryptOptions): DecryptStream {
  return new DecryptStream(options);
}
