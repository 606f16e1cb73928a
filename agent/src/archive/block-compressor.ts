// Compression on every core. The payload is cut into blocks of a fixed number of input bytes,
// each compressed on its own (one zstd frame or one gzip member per block) by a pool of worker
// threads, and the results are handed on in input order. Block boundaries depend only on the
// input bytes and each block is compressed alone with the same settings, so the output is the
// same byte for byte whatever the number of threads (and the same as compressing each block
// with zstd/gzip alone). Readers need nothing new: zstd streams may hold several frames and gzip
// streams several members (docs/archive-format.md).
import { availableParallelism } from "node:os";
import { GZIP_LEVEL, ZSTD_LEVEL } from "./compression.ts";
import type { Compression } from "./format.ts";

/** Input bytes per independently compressed block (4 MiB: zstd -3's window is 2 MiB). */
export const COMPRESSION_BLOCK_SIZE = 4 * 1024 * 1024;
// Blocks each thread may hold (being compressed or waiting to be handed on): enough to keep the
// threads busy while the main thread encrypts and writes, and memory bounded by
// threads × 2 × (block + its output).
const BLOCKS_PER_THREAD = 2;

// The worker's whole program, as source text so that it needs no file of its own (the agent is
// a single compiled executable). It only calls node:zlib.
const WORKER_SOURCE = `
import { constants, gzipSync, zstdCompressSync } from "node:zlib";
self.onmessage = (event) => {
  const { id, input, compression, level } = event.data;
  try {
    const output = compression === "zstd"
      ? zstdCompressSync(input, { params: { [constants.ZSTD_c_compressionLevel]: level } })
      : gzipSync(input, { level });
    const own = output.byteOffset === 0 && output.byteLength === output.buffer.byteLength
      ? new Uint8Array(output.buffer) : new Uint8Array(output);
    self.postMessage({ id, output: own }, [own.buffer]);
  } catch (error) {
    self.postMessage({ id, error: String(error && error.message || error) });
  }
};
`;

export interface BlockCompressorOptions {
  compression: Exclude<Compression, "none">;
  /** Worker threads; the cores this process may use unless told otherwise. */
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
  /** Stops the threads; pending blocks are dropped. Never throws. */
  destroy(): void;
}

/** Returns the number of compression threads used when none is given: the cores available. */
export function defaultCompressionThreads(): number {
  return Math.max(1, availableParallelism());
}

/** Starts a block compressor and its worker threads; throws only if threads cannot start. */
export function createBlockCompressor(options: BlockCompressorOptions): BlockCompressor {
  return new PooledCompressor(options);
}

// Bun's Worker can be left out of the event loop's reckoning (its DOM type does not say so).
type ThreadWorker = Worker & { ref(): void; unref(): void };

class PooledCompressor implements BlockCompressor {
  readonly #options: BlockCompressorOptions;
  readonly #level: number;
  readonly #workers: ThreadWorker[];
  readonly #idle: ThreadWorker[];
  readonly #maxInFlight: number;
  readonly #waiting: { id: number; input: Uint8Array }[] = [];
  readonly #done = new Map<number, Uint8Array>();
  #block: Uint8Array;
  #filled = 0;
  #nextId = 0;
  #nextToDeliver = 0;
  #inFlight = 0;
  #delivering = false;
  #failure: Error | undefined;
  #roomWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  #settled: { resolve: () => void; reject: (error: Error) => void } | undefined;
  #ended = false;

  constructor(options: BlockCompressorOptions) {
    this.#options = options;
    this.#level = options.compression === "zstd" ? ZSTD_LEVEL : GZIP_LEVEL;
    const threads = Math.max(1, Math.floor(options.threads ?? defaultCompressionThreads()));
    this.#maxInFlight = threads * BLOCKS_PER_THREAD;
    const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" }));
    this.#workers = Array.from({ length: threads }, () => {
      const worker = new Worker(url) as ThreadWorker;
      worker.onmessage = (event: MessageEvent) => this.#receive(worker, event.data);
      worker.onerror = (event) => this.#fail(new Error(`a compression thread failed: ${event.message}`));
      // Idle threads must not keep the process alive.
      worker.unref();
      return worker;
    });
    this.#idle = [...this.#workers];
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
    this.#ended = true;
    // An empty payload still becomes one (empty) frame or member: decompressors refuse no bytes.
    if (this.#filled > 0 || this.#nextId === 0) this.#dispatchBlock();
    return new Promise<void>((resolve, reject) => {
      this.#settled = { resolve, reject };
      this.#checkSettled();
    }).finally(() => this.destroy());
  }

  destroy(): void {
    for (const worker of this.#workers) worker.terminate();
    this.#workers.length = 0;
    this.#idle.length = 0;
  }

  // The block is handed to a thread and a fresh one started: the filled one's memory moves to
  // the thread (transferred, not copied).
  #dispatchBlock(): void {
    const input = this.#filled === COMPRESSION_BLOCK_SIZE ? this.#block : this.#block.slice(0, this.#filled);
    this.#block = this.#ended ? new Uint8Array(0) : new Uint8Array(COMPRESSION_BLOCK_SIZE);
    this.#filled = 0;
    this.#inFlight++;
    this.#waiting.push({ id: this.#nextId++, input });
    this.#startWaiting();
  }

  #startWaiting(): void {
    while (this.#waiting.length > 0 && this.#idle.length > 0) {
      const job = this.#waiting.shift()!;
      const worker = this.#idle.pop()!;
      worker.ref();
      worker.postMessage({ id: job.id, input: job.input, compression: this.#options.compression, level: this.#level }, [
        job.input.buffer as ArrayBuffer,
      ]);
    }
  }

  #receive(worker: ThreadWorker, message: { id: number; output?: Uint8Array; error?: string }): void {
    worker.unref();
    this.#idle.push(worker);
    if (message.error !== undefined || !message.output) {
      this.#fail(new Error(`${this.#options.compression} compression failed: ${message.error ?? "no output"}`));
      return;
    }
    this.#done.set(message.id, message.output);
    this.#startWaiting();
    void this.#deliver();
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
