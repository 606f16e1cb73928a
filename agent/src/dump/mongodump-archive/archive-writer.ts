import { MongodumpArchiveError } from "./errors.ts";
import type { ArchivePrelude, ArchiveWriteItem } from "./types.ts";
import { writeMongodumpArchive, type WriteArchiveOptions } from "./write-archive.ts";

export interface ArchiveWriterOptions extends WriteArchiveOptions {
  /** Producers wait once this many document bytes are queued and not yet encoded; default 8 MiB. */
  highWaterMarkBytes?: number;
}

/** A push-style archive writer several producers (one per collection cursor) can feed at once. */
export interface ArchiveWriter {
  /** The archive bytes; iterate exactly once, e.g. `Readable.from(writer.output)` into a pipeline. */
  readonly output: AsyncGenerator<Uint8Array, void, undefined>;
  /** Queues one raw BSON document; resolves when there is room again, rejects once the writer failed or closed. */
  writeDocument(namespace: string, bytes: Uint8Array): Promise<void>;
  /** Queues the end of a namespace (its EOF header); rejects once the writer failed or closed. */
  endNamespace(namespace: string): Promise<void>;
  /** Declares that no more items come; remaining namespaces then end. Rejects if the writer failed. */
  close(): Promise<void>;
  /** Fails the writer: `output` throws `reason` and pending and later calls reject with it. */
  abort(reason: Error): void;
}

/**
 * Creates a push-style writer over `writeMongodumpArchive`: producers await `writeDocument`
 * (backpressure through a byte high-water mark) while one consumer drains `output`. Errors of
 * the encoding (unknown namespace, malformed document, ...) surface on `output` and reject the
 * producers' next calls. Throws nothing itself; the prelude is checked when `output` starts.
 */
export function createArchiveWriter(prelude: ArchivePrelude, options: ArchiveWriterOptions = {}): ArchiveWriter {
  const queue = new ItemQueue(options.highWaterMarkBytes ?? 8 * 1024 * 1024);
  async function* produceOutput(): AsyncGenerator<Uint8Array, void, undefined> {
    let finished = false;
    try {
      yield* writeMongodumpArchive(prelude, queue.drain(), options);
      finished = true;
    } catch (error) {
      queue.fail(error instanceof Error ? error : new Error(String(error)));
      throw error;
    } finally {
      if (!finished) {
        queue.fail(new MongodumpArchiveError("writer-closed", "the archive output was closed before the writer finished"));
      }
    }
  }
  return {
    output: produceOutput(),
    writeDocument: (namespace, bytes) => queue.push({ kind: "document", namespace, bytes }, bytes.length),
    endNamespace: (namespace) => queue.push({ kind: "namespace-end", namespace }, 0),
    close: () => queue.finish(),
    abort: (reason) => queue.fail(reason),
  };
}

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

/** A single-consumer queue that makes producers wait while too many bytes are queued. */
class ItemQueue {
  private items: ArchiveWriteItem[] = [];
  private head = 0;
  private queuedBytes = 0;
  private closed = false;
  private failure: Error | undefined;
  private wakeConsumer: (() => void) | undefined;
  private spaceWaiters: Waiter[] = [];

  constructor(private readonly highWaterMarkBytes: number) {}

  push(item: ArchiveWriteItem, bytes: number): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) {
      return Promise.reject(new MongodumpArchiveError("writer-closed", "the archive writer is already closed"));
    }
    this.items.push(item);
    this.queuedBytes += bytes;
    this.notifyConsumer();
    if (this.queuedBytes <= this.highWaterMarkBytes) return Promise.resolve();
    return new Promise((resolve, reject) => this.spaceWaiters.push({ resolve, reject }));
  }

  finish(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    this.closed = true;
    this.notifyConsumer();
    return Promise.resolve();
  }

  fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.items = [];
    this.head = 0;
    for (const waiter of this.spaceWaiters.splice(0)) waiter.reject(error);
    this.notifyConsumer();
  }

  async *drain(): AsyncGenerator<ArchiveWriteItem, void, undefined> {
    for (;;) {
      if (this.failure) throw this.failure;
      if (this.head < this.items.length) {
        const item = this.items[this.head]!;
        this.head++;
        if (this.head === this.items.length) {
          this.items = [];
          this.head = 0;
        }
        if (item.kind === "document") this.queuedBytes -= item.bytes.length;
        if (this.queuedBytes <= this.highWaterMarkBytes) {
          for (const waiter of this.spaceWaiters.splice(0)) waiter.resolve();
        }
        yield item;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.wakeConsumer = resolve;
      });
    }
  }

  private notifyConsumer(): void {
    const wake = this.wakeConsumer;
    this.wakeConsumer = undefined;
    wake?.();
  }
}
