// Compression on every core. The payload is cut into blocks of a fixed number of input bytes,
// each compressed on its own (one zstd frame or one gzip member per block) by worker threads, and
// the results are handed on in input order. Block boundaries depend only on the input bytes and
// each block is compressed alone the same way (BlockCompression), so the output is the same byte
// for byte whatever the number of threads, with one or many. Readers need nothing
// new: zstd streams may hold several frames and gzip streams several members
// (docs/archive-format.md).
//
// Why worker threads: node:zlib's asynchronous calls and Bun.zstdCompress ran one at a time on
// this runtime (2 cores: no faster than one), and their output arrived in 16 KiB pieces
// concatenated on the main thread. A Bun worker costs ~8 MB; input blocks are SharedArrayBuffers
// that the threads read in place and that are reused (no copy, no fresh memory per block). Each
// thread keeps its own zstd context (compress-block.ts).
import { availableParallelism } from "node:os";
import { RUNNING_COMPILED } from "../build-info.ts";
import { type BlockCompression, compressBlock, threadBlockCompression } from "./compress-block.ts";
import type { Compression } from "./format.ts";

export { compressBlock };

/**
 * Input bytes per independently compressed block: 2 MiB, zstd -3's window, so a block loses
 * little to not seeing the one before (+2 % on generated orders, +0.03 % on a dump of the bench
 * database, against one frame); 4 MiB blocks cost ~7 MB more peak memory (zstd contexts).
 */
export const COMPRESSION_BLOCK_SIZE = 2 * 1024 * 1024;
// Blocks in flight beyond one per thread (being compressed, or waiting to be handed on): one
// more lets the caller fill the next block while every thread works (with none, one thread and
// the caller took turns: two cores ran no faster than one). Memory: (threads + 2) input blocks,
// threads × (zstd context + output).
const EXTRA_BLOCKS_IN_FLIGHT = 1;
// Input slots a finished compressor leaves for the next one on this thread: the shipper seals a
// slice every few seconds, each through a compressor of its own, and two fresh 2 MiB slots per
// slice were garbage as soon as it was sealed.
const SPARE_SLOTS_KEPT = 2;
const spareSlots: SharedArrayBuffer[] = [];
const takeSlot = () => spareSlots.pop() ?? new SharedArrayBuffer(COMPRESSION_BLOCK_SIZE);

// The compiled agent carries the worker as an entry point of its own (scripts/build-agent.ts),
// found by its path from the entry points' common folder, agent/src; from source, it is the file
// beside this one.
function workerLocation(): string | URL {
  return RUNNING_COMPILED ? "./archive/compression-worker.ts" : new URL("./compression-worker.ts", import.meta.url);
}

export interface BlockCompressorOptions {
  compression: Exclude<Compression, "none">;
  /** Worker threads (0: compress on the calling thread); defaultCompressionThreads() unless told otherwise. */
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

/**
 * Returns the number of compression threads used when none is given: one less than the cores
 * available, since the calling thread has as much to do (reading, the archive's checksums,
 * encryption, writing) as one compressing thread; none on one core (blocks are then compressed
 * on the calling thread, with the same output). Each thread costs ~10 MB of memory.
 */
export function defaultCompressionThreads(): number {
  return availableParallelism() - 1;
}

/** Starts a block compressor and its worker threads; throws only if a thread cannot start. */
export function createBlockCompressor(options: BlockCompressorOptions): BlockCompressor {
  return new PooledCompressor(options);
}

// Bun's Worker can be left out of the event loop's reckoning (its DOM type does not say so).
type ThreadWorker = Worker & { ref(): void; unref(): void };

class PooledCompressor implements BlockCompressor {
  readonly #options: BlockCompressorOptions;
  // Without threads: this thread's compression (threadBlockCompression).
  readonly #inline: BlockCompression;
  readonly #workers: ThreadWorker[];
  readonly #idle: ThreadWorker[];
  readonly #freeSlots: SharedArrayBuffer[] = [];
  readonly #waiting: { id: number; slot: SharedArrayBuffer; length: number }[] = [];
  readonly #slotOf = new Map<number, SharedArrayBuffer>();
  readonly #done = new Map<number, Uint8Array>();
  #slot: SharedArrayBuffer;
  #view: Uint8Array;
  #filled = 0;
  #nextId = 0;
  #nextToDeliver = 0;
  #inFlight = 0;
  readonly #maxInFlight: number;
  #delivering = false;
  #failure: Error | undefined;
  #roomWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  #settled: { resolve: () => void; reject: (error: Error) => void } | undefined;

  constructor(options: BlockCompressorOptions) {
    this.#options = options;
    this.#inline = threadBlockCompression(options.compression);
    const threads = Math.max(0, Math.floor(options.threads ?? defaultCompressionThreads()));
    this.#maxInFlight = threads + EXTRA_BLOCKS_IN_FLIGHT;
    this.#slot = takeSlot();
    this.#view = new Uint8Array(this.#slot);
    this.#workers = Array.from({ length: threads }, () => {
      const worker = new Worker(workerLocation()) as ThreadWorker;
      worker.onmessage = (event: MessageEvent) => this.#receive(worker, event.data);
      worker.onerror = (event) => this.#fail(new Error(`a compression thread failed: ${event.message}`));
      worker.unref(); // idle threads must not keep the process alive
      return worker;
    });
    this.#idle = [...this.#workers];
  }

  write(bytes: Uint8Array): Promise<void> | undefined {
    if (this.#failure) throw this.#failure;
    let offset = 0;
    while (offset < bytes.length) {
      const n = Math.min(bytes.length - offset, COMPRESSION_BLOCK_SIZE - this.#filled);
      this.#view.set(n === bytes.length ? bytes : bytes.subarray(offset, offset + n), this.#filled);
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
    }).finally(() => {
      this.destroy();
      // Every block was handed on: no thread reads a slot any more.
      for (const slot of [this.#slot, ...this.#freeSlots.splice(0)]) if (spareSlots.length < SPARE_SLOTS_KEPT) spareSlots.push(slot);
    });
  }

  destroy(): void {
    for (const worker of this.#workers) worker.terminate();
    this.#workers.length = 0;
    this.#idle.length = 0;
  }

  // The filled slot goes to a thread and a free one is filled meanwhile (a new one only when a
  // caller wrote past the room it was given, e.g. one huge write).
  #dispatchBlock(): void {
    const id = this.#nextId++;
    this.#waiting.push({ id, slot: this.#slot, length: this.#filled });
    this.#slotOf.set(id, this.#slot);
    this.#inFlight++;
    this.#slot = this.#freeSlots.pop() ?? takeSlot();
    this.#view = new Uint8Array(this.#slot);
    this.#filled = 0;
    this.#startWaiting();
  }

  #startWaiting(): void {
    if (this.#workers.length === 0) return this.#compressInline();
    while (this.#waiting.length > 0 && this.#idle.length > 0) {
      const job = this.#waiting.shift()!;
      const worker = this.#idle.pop()!;
      worker.ref();
      worker.postMessage({
        id: job.id,
        ring: job.slot,
        offset: 0,
        length: job.length,
        compression: this.#options.compression,
      });
    }
  }

  // Without threads (one core): the same call, on this thread, one block at a time.
  #compressInline(): void {
    const job = this.#waiting.shift();
    if (!job) return;
    try {
      const output = this.#inline.compress(new Uint8Array(job.slot, 0, job.length));
      this.#finishBlock(job.id, output);
    } catch (error) {
      this.#fail(new Error(`${this.#options.compression} compression failed: ${(error as Error).message}`));
    }
  }

  #receive(worker: ThreadWorker, message: { id: number; output?: Uint8Array; error?: string }): void {
    worker.unref();
    this.#idle.push(worker);
    if (message.error !== undefined || !message.output) {
      this.#fail(new Error(`${this.#options.compression} compression failed: ${message.error ?? "no output"}`));
      return;
    }
    this.#finishBlock(message.id, message.output);
    this.#startWaiting();
  }

  #finishBlock(id: number, output: Uint8Array): void {
    // The block's input slot is free again (kept for reuse, as many as can be in flight).
    const slot = this.#slotOf.get(id)!;
    this.#slotOf.delete(id);
    if (this.#freeSlots.length < this.#maxInFlight) this.#freeSlots.push(slot);
    this.#done.set(id, output);
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
