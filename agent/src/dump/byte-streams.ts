// Small adapters between the byte-stream flavours callers hand in (web streams, Node streams,
// async iterables), with byte counting for progress.
import { Readable, Writable } from "node:stream";
import type { ByteSource } from "./types.ts";

/** Iterates any ByteSource; calls `onBytes` with each chunk's size as it passes; never throws itself. */
export async function* countBytes(source: ByteSource, onBytes: (count: number) => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of iterateBytes(source)) {
    onBytes(chunk.length);
    yield chunk;
  }
}

/** Returns an async iterable over any ByteSource; never throws. */
export function iterateBytes(source: ByteSource): AsyncIterable<Uint8Array> {
  if (Symbol.asyncIterator in source) return source as AsyncIterable<Uint8Array>;
  if (Symbol.iterator in source) return iterateSync(source as Iterable<Uint8Array>);
  return Readable.fromWeb(source as unknown as import("node:stream/web").ReadableStream<Uint8Array>);
}

async function* iterateSync(source: Iterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield* source;
}

/** Returns a Node Writable for a Node Writable or a web WritableStream; never throws. */
export function toNodeWritable(output: Writable | WritableStream<Uint8Array>): Writable {
  if (output instanceof Writable) return output;
  return Writable.fromWeb(output as unknown as import("node:stream/web").WritableStream<Uint8Array>);
}
