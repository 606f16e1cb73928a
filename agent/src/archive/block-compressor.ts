// Compression on every core. The payload is cut into blocks of a fixed number of input bytes,
// each compressed on its own (one zstd frame or one gzip member per block) by node:zlib's
// asynchronous one-shot calls, which run on the runtime's native thread pool (no JavaScript
// thread, so no second heap), several at once; the results are handed on in input order. Block
// boundaries depend only on the input bytes and each block is compressed alone with the same
// settings, so the output is the same byte for byte whatever the number of blocks in flight.
// Readers need nothing new: zstd streams may hold several frames and gzip streams several
// members (docs/archive-format.md).
import { availableParallelism } from "node:os";
import { constants, gzip, zstdCompress } from "node:zlib";
import { GZIP_LEVEL, ZSTD_LEVEL } from "./compression.ts";
import type { Compression } from "./format.ts";

/** Input bytes per independently compressed block (4 MiB: zstd -3's window is 2 MiB). */
export const COMPRESSION_BLOCK_SIZE = 4 * 1024 * 1024;
// Blocks in flight per thread (being compressed or waiting to be handed on). One keeps the pool
// busy (a 4 MiB block takes ~6 ms to compress, ~0.5 ms to copy in and seal) and bounds memory at
// threads × (block + zstd context + output); two added ~20 MiB to a 256 MiB round trip's peak
// for no measurable speed. Input blocks are reused, so their memory is touched once.
const BLOCKS_PER_THREAD = 1;

export interface BlockCompressorOptions {
  compression: Exclude<Compression, "none">;
  /** Blocks compressed at once (pool threads used); the cores this process may use unless told otherwise. */
  threads?: number;
  /** Receives each compressed block in input order; a returned promise holds back later blocks. */
  onOutput: (block: Uint8Array) => void | Promise<void>;
}

/** Pushes bytes in, gets compressed blocks out in order (see the file comment). */
export interface BlockCompressor {
  /** Copies the bytes in; returns a promise when the caller should wait for room, else undefined. Throws after a failure. */
  write(bytes: Uint8Array): Promise<void> | undefined;
  /** Compresses what is left; resolves once every block was handed on. Rejects with the first failure. */
  end(): Promise<void>;
  /** Stops handing blocks on; pending ones are dropped. Never throws. */
  destroy(): void;
}

/** Returns how many blocks are compressed at once when not told: the cores available. */
export function defaultCompressionThreads(): number {
  return Math.max(1, availableParallelism());
}

/** Compresses one block alone, on the thread pool; the same bytes always give the same output. Rejects on a zlib failure. */
export function compressBlock(compression: Exclude<Compression, "none">, input: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, output: Buffer) => (error ? reject(error) : resolve(output));
    if (compression === "zstd") zstdCompress(input, { params: { [constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL } }, done);
    else gzip(input, { level: GZIP_LEVEL }, done);
  });
}

/** Starts a block compressor; never throws. */
export function createBlockCompressor(options: BlockCompressorOptions): BlockCompressor {
  return new PooledCompressor(options);
}

class PooledCompressor implements BlockCompressor {
  readonly #options: BlockCompressorOptions;
  readonly #maxInFlight: number;
  readonly #done = new Map<number, Uint8Array>();
  readonly #freeBlocks: Uint8Array[] = [];
  #block: Uint8Array;
  #filled = 0;
  #nextId = 0;
  #nextToDeliver = 0;
  #inFlight = 0;
  #delivering = false;
  #stopped = false;
  #failure: Error | undefined;
  #roomWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  #settled: { resolve: () => void; reject: (error: Error) => void } | undefined;

  constructor(options: BlockCompressorOptions) {
    this.#options = options;
    const threads = Math.max(1, Math.floor(options.threads ?? defaultCompressionThreads()));
    this.#maxInFlight = threads * BLOCKS_PER_THREAD;
    this.#block = new Uint8Array(COMPRESSION_BLOCK_SIZE);
  }

  write(bytes: Uint8Array): Promise<void> | undefined {
    if (this.#failure) throw this.#failure;
    let offset = 0;
    while (offset < bytes.length) {
      const n = Math.min(bytes.length - offset, COMPRESSION_BLOCK_SIZE - this.#filled);
      this.#block.set(n === bytes.length ? bytes : bytes.subarray(offset, offset + n), this.#filled);
      this.#filled += n;
      offset += n;
      if (this.#filled === COMPRESSION_BLOCK_SIZE) this.#dispatchBlock();
    }
    if (this.#inFlight < this.#maxInFlight) return undefined;
    return new Promise((resolve, reject) => this.#roomWaiters.push({ resolve, reject }));
  }

  end(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    // An empty payload still becomes one (empty) frame or member: decompressors refuse no bytes.
    if (this.#filled > 0 || this.#nextId === 0) this.#dispatchBlock();
    return new Promise<void>((resolve, reject) => {
      this.#settled = { resolve, reject };
      this.#checkSettled();
    }).finally(() => this.destroy());
  }

  destroy(): void {
    this.#stopped = true;
    this.#freeBlocks.length = 0;
  }

  // The filled block goes to the pool and a free one (or a new one) takes its place; the block
  // comes back once its compression has finished.
  #dispatchBlock(): void {
    const block = this.#block;
    const input = this.#filled === COMPRESSION_BLOCK_SIZE ? block : block.subarray(0, this.#filled);
    const id = this.#nextId++;
    this.#block = this.#freeBlocks.pop() ?? new Uint8Array(COMPRESSION_BLOCK_SIZE);
    this.#filled = 0;
    this.#inFlight++;
    compressBlock(this.#options.compression, input).then(
      (output) => {
        if (!this.#stopped) this.#freeBlocks.push(block);
        this.#done.set(id, output);
        void this.#deliver();
      },
      (error: Error) => this.#fail(new Error(`${this.#options.compression} compression failed: ${error.message}`)),
    );
  }

  // Hands finished blocks on strictly in input order, one at a time.
  async #deliver(): Promise<void> {
    if (this.#delivering) return;
    this.#delivering = true;
    try {
      for (;;) {
        const output = this.#done.get(this.#nextToDeliver);
        if (output === undefined || this.#failure) break;
        this.#done.delete(this.#nextToDeliver);
        this.#nextToDeliver++;
        await this.#options.onOutput(output);
        this.#inFlight--;
        if (this.#inFlight < this.#maxInFlight) for (const waiter of this.#roomWaiters.splice(0)) waiter.resolve();
      }
    } catch (error) {
      this.#fail(error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.#delivering = false;
    }
    this.#checkSettled();
  }

  #checkSettled(): void {
    if (!this.#settled) return;
    if (this.#failure) this.#settled.reject(this.#failure);
    else if (this.#inFlight === 0) this.#settled.resolve();
  }

  #fail(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    for (const waiter of this.#roomWaiters.splice(0)) waiter.reject(error);
    this.#checkSettled();
    this.destroy();
  }
}
