import { ArchiveScanner, type ReadArchiveOptions } from "./archive-scanner.ts";
import { MongodumpArchiveError } from "./errors.ts";
import type { ArchiveEvent, ArchiveSource } from "./types.ts";

export type { ReadArchiveOptions } from "./archive-scanner.ts";

/**
 * Reads a mongodump `--archive` stream incrementally and yields its header, each collection of
 * the prelude, every document (raw BSON, untouched), each namespace's end with its CRC checked,
 * then `end`. Memory stays at one document plus one input chunk. Throws MongodumpArchiveError
 * (see its `code`) on anything damaged, truncated or inconsistent, after the events before the
 * damage; stops the source when the caller stops iterating early.
 */
export function readMongodumpArchive(source: ArchiveSource, options: ReadArchiveOptions = {}): AsyncGenerator<ArchiveEvent, void, undefined> {
  return scanArchive(source, { ...options, documents: true });
}

/**
 * Like readMongodumpArchive without `document` events: documents are checked (length, final
 * byte, checksum) where they lie in the input and never copied. Used by summaries and verification.
 */
export function readArchiveStructure(source: ArchiveSource, options: ReadArchiveOptions = {}): AsyncGenerator<ArchiveEvent, void, undefined> {
  return scanArchive(source, { ...options, documents: false });
}

// The events of one input chunk are parsed synchronously, then yielded: a document costs no
// await of its own.
async function* scanArchive(source: ArchiveSource, options: ReadArchiveOptions & { documents: boolean }): AsyncGenerator<ArchiveEvent, void, undefined> {
  let events: ArchiveEvent[] = [];
  const scanner = new ArchiveScanner(options, (event) => events.push(event));
  const iterator = openIterator(source);
  try {
    for (;;) {
      const step = await iterator.next();
      let failure: unknown;
      try {
        if (step.done) scanner.end();
        else scanner.write(toBytes(step.value, scanner.position));
      } catch (error) {
        failure = error;
      }
      const ready = events;
      events = [];
      for (const event of ready) yield event;
      if (failure !== undefined) throw failure;
      if (step.done) return;
    }
  } finally {
    try {
      await iterator.return?.();
    } catch {
      // The source failing while being cancelled changes nothing for the caller.
    }
  }
}

function toBytes(value: unknown, offset: number): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  throw new MongodumpArchiveError(
    "invalid-input",
    `the source yielded ${typeof value === "string" ? "text" : typeof value}, not bytes; read the archive as a binary stream`,
    { offset },
  );
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
