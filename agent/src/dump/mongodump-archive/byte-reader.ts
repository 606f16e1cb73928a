import { MongodumpArchiveError } from "./errors.ts";
import type { ArchiveSource } from "./types.ts";

const EMPTY = new Uint8Array(0);

/**
 * Pulls byte chunks from a source on demand and hands out exact-length slices. Only as many
 * chunks are pulled as the current read needs, so memory stays at one read plus one chunk.
 * A slice lying inside one chunk is a zero-copy view of it; one spanning chunks is a fresh copy.
 */
export class ByteReader {
  private readonly iterator: AsyncIterator<Uint8Array | ArrayBuffer> | Iterator<Uint8Array | ArrayBuffer>;
  private chunks: Uint8Array[] = [];
  private head = 0; // index of the first unconsumed chunk in `chunks`
  private headOffset = 0; // bytes already consumed from chunks[head]
  private available = 0; // unconsumed bytes across all held chunks
  private ended = false;
  /** Bytes consumed so far: the stream offset of the next byte. */
  position = 0;

  constructor(source: ArchiveSource) {
    this.iterator = openIterator(source);
  }

  /** Tells whether at least n bytes are buffered, so a read needs no await; never throws. */
  has(n: number): boolean {
    return this.available >= n;
  }

  /** Pulls chunks until n bytes are buffered or the source ends; returns whether n are there. Throws on non-byte chunks. */
  async fill(n: number): Promise<boolean> {
    while (this.available < n && !this.ended) {
      const step = await this.iterator.next();
      if (step.done) {
        this.ended = true;
        break;
      }
      this.push(step.value);
    }
    return this.available >= n;
  }

  /** Returns the next n bytes, which must be buffered (see `has`/`fill`); never throws. */
  take(n: number): Uint8Array {
    const first = this.chunks[this.head]!;
    let result: Uint8Array;
    if (first.length - this.headOffset >= n) {
      result = first.subarray(this.headOffset, this.headOffset + n);
      this.headOffset += n;
      if (this.headOffset === first.length) this.dropHead();
    } else {
      result = new Uint8Array(n);
      let filled = 0;
      while (filled < n) {
        const chunk = this.chunks[this.head]!;
        const count = Math.min(n - filled, chunk.length - this.headOffset);
        result.set(chunk.subarray(this.headOffset, this.headOffset + count), filled);
        filled += count;
        this.headOffset += count;
        if (this.headOffset === chunk.length) this.dropHead();
      }
    }
    this.available -= n;
    this.position += n;
    return result;
  }

  /** Reads a little-endian int32 from the 4 buffered bytes at the front without consuming them; never throws. */
  peekInt32(): number {
    const first = this.chunks[this.head]!;
    const at = this.headOffset;
    if (first.length - at >= 4) {
      return first[at]! | (first[at + 1]! << 8) | (first[at + 2]! << 16) | (first[at + 3]! << 24);
    }
    let value = 0;
    let index = this.head;
    let offset = at;
    for (let shift = 0; shift < 32; shift += 8) {
      while (offset >= this.chunks[index]!.length) {
        index++;
        offset = 0;
      }
      value |= this.chunks[index]![offset]! << shift;
      offset++;
    }
    return value;
  }

  /** Tells, pulling if needed, whether the source has no more bytes; throws on non-byte chunks. */
  async atEnd(): Promise<boolean> {
    return !(await this.fill(1));
  }

  /** Stops the source early (e.g. cancels a ReadableStream); never throws. */
  async close(): Promise<void> {
    this.ended = true;
    this.chunks = [];
    try {
      await this.iterator.return?.();
    } catch {
      // The source failing while being cancelled changes nothing for the caller.
    }
  }

  private push(value: unknown): void {
    let chunk: Uint8Array;
    if (value instanceof Uint8Array) chunk = value;
    else if (value instanceof ArrayBuffer) chunk = new Uint8Array(value);
    else {
      throw new MongodumpArchiveError(
        "invalid-input",
        `the source yielded ${typeof value === "string" ? "text" : typeof value}, not bytes; read the archive as a binary stream`,
        { offset: this.position + this.available },
      );
    }
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.available += chunk.length;
  }

  private dropHead(): void {
    // Release the consumed chunk at once; only the array slot lives on until compaction.
    this.chunks[this.head] = EMPTY;
    this.head++;
    this.headOffset = 0;
    // Compact now and then so the array of consumed chunks does not grow without bound.
    if (this.head > 64 && this.head * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.head = 0;
    }
  }
}

function openIterator(source: ArchiveSource): AsyncIterator<Uint8Array | ArrayBuffer> | Iterator<Uint8Array | ArrayBuffer> {
  const candidate = source as Partial<AsyncIterable<Uint8Array>> & Partial<Iterable<Uint8Array>>;
  if (typeof candidate[Symbol.asyncIterator] === "function") return candidate[Symbol.asyncIterator]!();
  if (typeof candidate[Symbol.iterator] === "function") return candidate[Symbol.iterator]!();
  if (source instanceof ReadableStream) return readableStreamIterator(source);
  throw new MongodumpArchiveError("invalid-input", "the source is neither a stream nor an iterable of byte chunks");
}

// A ReadableStream is async-iterable under Bun, but not in every runtime's types; wrap it by hand.
function readableStreamIterator(stream: ReadableStream<Uint8Array>): AsyncIterator<Uint8Array> {
  const reader = stream.getReader();
  return {
    async next() {
      const { done, value } = await reader.read();
      return done ? { done: true, value: undefined } : { done: false, value };
    },
    async return() {
      await reader.cancel();
      return { done: true, value: undefined };
    },
  };
}
