import { buildNonce, buildNonceFromFrame, openChunk, readFrameIndex } from "./chunk-crypto.ts";
import { CorruptChunkError, ReorderedChunksError } from "./errors.ts";
import { type ArchiveHeader, FRAME_HEADER_LENGTH, TAG_LENGTH } from "./format.ts";
import { type Frame, FrameReader } from "./frame-reader.ts";
import { HeaderAccumulator } from "./header-accumulator.ts";
import { openHeader } from "./header.ts";
import { assertMasterKey, type MasterKeys } from "./keys.ts";

/**
 * Synchronous core of decryption: feed file bytes, get back authenticated payload bytes (still
 * compressed). Every error is a typed ArchiveError thrown from `write` or `end`; plaintext of a
 * chunk is returned only after its tag verified.
 */
export class ArchiveReader {
  readonly #keys: readonly Uint8Array[];
  readonly #identities: readonly Uint8Array[];
  readonly #headerInput = new HeaderAccumulator();
  #header: ArchiveHeader | undefined;
  #payloadKey: Buffer | undefined;
  #frames: FrameReader | undefined;
  #output: Buffer[] = [];

  /**
   * `keys`: the master key, or the keyring (current key first); the header's key id picks one.
   * `identities`: X25519 private keys, for files a write-only agent sealed to their public keys.
   */
  constructor(keys: MasterKeys, identities: readonly Uint8Array[] = []) {
    this.#keys = keys instanceof Uint8Array ? [keys] : [...keys];
    this.#identities = [...identities];
    if (this.#keys.length === 0 && this.#identities.length === 0) assertMasterKey(new Uint8Array(0));
    for (const key of this.#keys) assertMasterKey(key);
  }

  /** The authenticated header, once it has been read. */
  get header(): ArchiveHeader | undefined {
    return this.#header;
  }

  /** Feeds file bytes; returns payload bytes of every chunk that completed and authenticated. */
  write(data: Uint8Array): Buffer[] {
    let rest = data;
    if (!this.#frames) {
      rest = this.#readHeader(data);
      if (!this.#frames) return [];
    }
    this.#output = [];
    this.#frames.write(rest);
    return this.#output;
  }

  /** Signals end of file; throws TruncatedArchiveError (or CorruptChunkError) if it is incomplete. */
  end(): void {
    if (!this.#frames) return this.#headerInput.fail();
    this.#frames.end((header, partialBody, position) => this.#diagnosePartialFrame(header, partialBody, position));
  }

  // Returns the bytes after the header once it is complete and opened.
  #readHeader(data: Uint8Array): Uint8Array {
    const taken = this.#headerInput.take(data);
    if (!taken) return data.subarray(data.length);
    const opened = openHeader(taken.headerBytes, this.#keys, this.#identities);
    this.#header = opened.header;
    this.#payloadKey = opened.payloadKey;
    // Versions 1 and 2 share the chunk layout; they differ only in where the payload key comes from.
    this.#frames = new FrameReader(opened.header.chunkSize, (frame) => this.#openFrame(frame));
    return taken.rest;
  }

  #openFrame(frame: Frame): void {
    const key = this.#payloadKey!;
    const claimed = readFrameIndex(frame.header);
    if (claimed !== frame.position) {
      // A chunk that opens under the index it claims is a genuine chunk of this file in the
      // wrong place; one that does not is simply damaged.
      const moved = openChunk(key, buildNonceFromFrame(frame.header), frame.header, frame.body);
      if (moved) throw new ReorderedChunksError(frame.position, claimed);
      throw new CorruptChunkError(frame.position);
    }
    const plaintext = openChunk(key, buildNonce(frame.position, frame.flag), frame.header, frame.body);
    if (!plaintext) throw new CorruptChunkError(frame.position);
    this.#output.push(plaintext);
  }

  // The input ended inside a frame. If the bytes present authenticate once the length field is
  // set to what arrived, the length field was damaged, not the file cut short.
  #diagnosePartialFrame(header: Buffer, partialBody: Buffer, position: number): void {
    const claimed = readFrameIndex(header);
    if (claimed !== position || partialBody.length < TAG_LENGTH) return;
    const repaired = Buffer.from(header.subarray(0, FRAME_HEADER_LENGTH));
    repaired.writeUInt32BE(partialBody.length - TAG_LENGTH, 9);
    const nonce = buildNonce(position, header[8]!);
    if (openChunk(this.#payloadKey!, nonce, repaired, partialBody)) {
      throw new CorruptChunkError(position, "its frame header is damaged");
    }
  }
}
