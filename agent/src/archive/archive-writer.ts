import { randomBytes } from "node:crypto";
import { releaseWholeBuffer } from "../../../protocol/release-buffer";
import { sealChunk } from "./chunk-crypto.ts";
import { type Compression, CURRENT_FORMAT_VERSION, DEFAULT_CHUNK_SIZE, type FormatVersion, type PayloadKind, SALT_LENGTH } from "./format.ts";
import { assertChunkSize, encodeHeaderV1 } from "./header.ts";
import { InvalidOptionsError } from "./errors.ts";
import { drawFileSecretsV2, encodeHeaderV2, type FileSecretsV2, type SealingKey } from "./header-v2.ts";

/** Options of a new backup file. */
export interface EncryptOptions {
  /** The 32-byte master key; or, instead of it, `recipient`. */
  masterKey?: Uint8Array;
  /** A write-only agent's X25519 public key (32 bytes): the file opens only with its private key. */
  recipient?: Uint8Array;
  /** Compression applied before encryption; zstd unless told otherwise. */
  compression?: Compression;
  /** Plaintext bytes per chunk, 64 B to 16 MiB; 1 MiB unless told otherwise. */
  chunkSize?: number;
  payloadKind?: PayloadKind;
  /** Recorded in the header; now unless told otherwise. */
  createdAt?: Date;
  /** The newest (2, envelope encryption) unless told otherwise; 1 only to write files as older agents did. */
  formatVersion?: FormatVersion;
}

/** The options with every default filled in. */
export type ResolvedEncryptOptions = Required<Omit<EncryptOptions, "masterKey" | "recipient">> & SealingKey;

/** Fills in the defaults of EncryptOptions; throws InvalidOptionsError or InvalidKeyError. */
export function resolveEncryptOptions(options: EncryptOptions): ResolvedEncryptOptions {
  if ((options.masterKey === undefined) === (options.recipient === undefined)) {
    throw new InvalidOptionsError("give exactly one of masterKey and recipient");
  }
  if (options.recipient && options.formatVersion === 1) throw new InvalidOptionsError("a recipient needs format version 2");
  const sealingKey: SealingKey = options.recipient ? { recipient: options.recipient } : { masterKey: options.masterKey! };
  const resolved = {
    ...sealingKey,
    compression: options.compression ?? "zstd",
    chunkSize: options.chunkSize ?? DEFAULT_CHUNK_SIZE,
    payloadKind: options.payloadKind ?? "mongodump-archive",
    createdAt: options.createdAt ?? new Date(),
    formatVersion: options.formatVersion ?? CURRENT_FORMAT_VERSION,
  } satisfies ResolvedEncryptOptions;
  assertChunkSize(resolved.chunkSize);
  return resolved;
}

/**
 * Synchronous core of encryption: feed payload bytes (already compressed), get back file bytes.
 * Holds at most one chunk, as references to the written buffers (no copy; like any Node stream,
 * callers must not modify a buffer after writing it). A full chunk is sealed only once more
 * bytes arrive, because whether it is the last one is part of its nonce.
 */
export class ArchiveWriter {
  /** The header; the caller outputs it before any chunk. */
  readonly headerBytes: Buffer;
  readonly #payloadKey: Buffer;
  readonly #chunkSize: number;
  #pending: Uint8Array[] = [];
  #pendingLength = 0;
  // Buffers handed over with writeOwned whose bytes are all in #pending or already sealed.
  #owned: Uint8Array[] = [];
  #index = 0;
  #ended = false;

  /**
   * `pinned` fixes the per-file randomness, for known-answer and golden tests only: a 32-byte salt
   * re-creates a version 1 file, data key and wrap salt a version 2 file.
   */
  constructor(options: ResolvedEncryptOptions, pinned?: Uint8Array | FileSecretsV2) {
    const { bytes, payloadKey } =
      pinned instanceof Uint8Array || (pinned === undefined && options.formatVersion === 1)
        ? encodeHeaderV1({ ...options, masterKey: options.masterKey!, salt: pinned ?? randomBytes(SALT_LENGTH) })
        : encodeHeaderV2({ ...options, ...(pinned ?? drawFileSecretsV2()) });
    this.headerBytes = bytes;
    this.#payloadKey = payloadKey;
    this.#chunkSize = options.chunkSize;
  }

  /** Feeds payload bytes; returns the frames (as buffers) of every chunk now known not to be last. */
  write(input: Uint8Array): Buffer[] {
    const out: Buffer[] = [];
    let offset = 0;
    while (offset < input.length) {
      if (this.#pendingLength === this.#chunkSize) out.push(...this.#sealPending(false));
      const n = Math.min(this.#chunkSize - this.#pendingLength, input.length - offset);
      this.#pending.push(input.subarray(offset, offset + n));
      this.#pendingLength += n;
      offset += n;
    }
    return out;
  }

  /**
   * Like write, for a buffer nobody else holds (a compressed block, a private copy): its memory is
   * freed as soon as its last byte is sealed, instead of at the next garbage collection, which
   * keeps a long backup's memory flat. The caller must not read it afterwards.
   */
  writeOwned(input: Uint8Array): Buffer[] {
    const frames = this.write(input);
    this.#owned.push(input);
    return frames;
  }

  /** Ends the payload; returns the frame of the last chunk (empty only if the payload was empty). */
  end(): Buffer[] {
    if (this.#ended) return [];
    this.#ended = true;
    return this.#sealPending(true);
  }

  #sealPending(isLast: boolean): Buffer[] {
    const frame = sealChunk(this.#payloadKey, this.#index++, isLast, this.#pending);
    this.#pending = [];
    this.#pendingLength = 0;
    // Every owned buffer was written before the input now being cut (if any), so all its bytes
    // were in the chunk just sealed or in earlier ones.
    for (const buffer of this.#owned) releaseWholeBuffer(buffer);
    this.#owned = [];
    return frame;
  }
}
