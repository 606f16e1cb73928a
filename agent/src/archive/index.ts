// Public API of the `.enc.dbvault` archive library. Everything else in this folder is internal.
// The format is specified in docs/archive-format.md.

export { ArchiveReader } from "./archive-reader.ts";
export { ArchiveWriter, type EncryptOptions, resolveEncryptOptions } from "./archive-writer.ts";
export { createDecompressor } from "./compression.ts";
export {
  decryptBuffer,
  decryptWebStream,
  encryptBuffer,
  encryptWebStream,
} from "./convenience.ts";
export { createDecryptStream, type DecryptOptions, DecryptStream } from "./decrypt-stream.ts";
export { createEncryptStream, EncryptStream, type EncryptStreamOptions } from "./encrypt-stream.ts";
export { COMPRESSION_BLOCK_SIZE, createBlockCompressor, defaultCompressionThreads, type BlockCompressor } from "./block-compressor.ts";
export * from "./errors.ts";
export {
  type ArchiveHeader,
  type Compression,
  CURRENT_FORMAT_VERSION,
  DEFAULT_CHUNK_SIZE,
  FRAME_HEADER_LENGTH,
  MAX_CHUNK_SIZE,
  MIN_CHUNK_SIZE,
  type PayloadKind,
  TAG_LENGTH,
} from "./format.ts";
export { readArchiveHeader } from "./header.ts";
export { rewrapHeaderV2 } from "./header-v2.ts";
export { type ArchiveInspection, inspectArchive } from "./inspect.ts";
export { decodeMasterKey, deriveKeyId, encodeMasterKey, generateMasterKey, type MasterKeys } from "./keys.ts";
export {
  decodeIdentity,
  decodeRecipient,
  encodeIdentity,
  encodeRecipient,
  generateIdentity,
  recipientFingerprint,
  recipientOf,
} from "./x25519-recipient.ts";
export { collectGarbageNow, createMemoryPacer, type MemoryPacer } from "./memory-pacer.ts";
