import { Readable, type Duplex } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { EncryptOptions } from "./archive-writer.ts";
import { createDecryptStream, type DecryptOptions } from "./decrypt-stream.ts";
import { createEncryptStream } from "./encrypt-stream.ts";
import type { ArchiveHeader } from "./format.ts";

/** Encrypts a whole in-memory payload into file bytes; for small payloads and tests. */
export async function encryptBuffer(plaintext: Uint8Array, options: EncryptOptions): Promise<Buffer> {
  return collect(Readable.from([plaintext]), createEncryptStream(options));
}

/** Decrypts whole in-memory file bytes; rejects with the ArchiveError that names the problem. */
export async function decryptBuffer(file: Uint8Array, options: DecryptOptions): Promise<{ header: ArchiveHeader; plaintext: Buffer }> {
  const stream = createDecryptStream(options);
  const plaintext = await collect(Readable.from(file.length > 0 ? [file] : []), stream);
  return { header: await stream.header, plaintext };
}

/** Pipes a web ReadableStream (e.g. a fetch body) through the encryptor into a web ReadableStream. */
export function encryptWebStream(input: ReadableStream<Uint8Array>, options: EncryptOptions): ReadableStream<Uint8Array> {
  return pipeWeb(input, createEncryptStream(options));
}

/** Pipes a web ReadableStream of file bytes through the decryptor; `header` settles once read. */
export function decryptWebStream(
  input: ReadableStream<Uint8Array>,
  options: DecryptOptions,
): { header: Promise<ArchiveHeader>; plaintext: ReadableStream<Uint8Array> } {
  const stream = createDecryptStream(options);
  return { header: stream.header, plaintext: pipeWeb(input, stream) };
}

function pipeWeb(input: ReadableStream<Uint8Array>, through: Duplex): ReadableStream<Uint8Array> {
  const source = Readable.fromWeb(input as unknown as import("node:stream/web").ReadableStream);
  // pipeline destroys `through` with the first error, and its web view then errors for the
  // reader; the rejection itself is already reported there.
  pipeline(source, through).catch(() => {});
  return Readable.toWeb(through) as unknown as ReadableStream<Uint8Array>;
}

async function collect(source: Readable, through: Duplex): Promise<Buffer> {
  const parts: Buffer[] = [];
  through.on("data", (part: Buffer) => parts.push(part));
  await pipeline(source, through);
  return Buffer.concat(parts);
}
