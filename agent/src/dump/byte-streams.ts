// Small adapters between the byte-stream flavours callers hand in (web streams, Node streams,
// async iterables), with byte counting for progress.
import { Readable, Writable } from "node:stream";
import { finished } from "node:stream/promises";
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

/** What the encrypting stream offers besides Writable: bytes copied in at once, no stream hop. */
interface CopyingWritable {
  writeCopied(bytes: Uint8Array): Promise<void> | undefined;
}

/**
 * Returns a sink for an archive writer that reuses its buffers: each call's bytes are copied
 * before it returns (straight into an EncryptStream's compression blocks, else as a new Buffer
 * written to `output`), and a returned promise settles once `output` has room again. Throws,
 * or rejects, once `output` has failed or closed.
 */
export function createArchiveSink(output: Writable, onBytes: (count: number) => void): (bytes: Uint8Array) => Promise<void> | undefined {
  const direct = typeof (output as Partial<CopyingWritable>).writeCopied === "function" ? (output as unknown as CopyingWritable) : undefined;
  return (bytes) => {
    onBytes(bytes.length);
    if (output.destroyed) throw output.errored ?? new Error("the output closed before the dump finished");
    if (direct) return direct.writeCopied(bytes);
    if (output.write(Buffer.from(bytes))) return undefined;
    return waitForDrain(output);
  };
}

/** Ends a Writable and waits until everything written was processed; rejects with its error. */
export async function endWritable(output: Writable): Promise<void> {
  output.end();
  await finished(output, { readable: false });
}

/** Resolves once `target` has room again; rejects with its error (or a plain one) if it closes first. */
export function waitForDrain(target: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      target.off("drain", onDrain);
      target.off("close", onClose);
    };
    const onDrain = () => {
      cleanup();
      resolve();
    };
    const onClose = () => {
      cleanup();
      reject(target.errored ?? new Error("the output closed before the dump finished"));
    };
    target.on("drain", onDrain);
    target.on("close", onClose);
  });
}
