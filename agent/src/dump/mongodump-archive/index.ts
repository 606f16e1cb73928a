// Streaming reader and writer of the mongodump `--archive` format (see README.md here).
export { createArchiveWriter, type ArchiveWriter, type ArchiveWriterOptions } from "./archive-writer.ts";
export { buildMetadataJson, createCollectionSpec } from "./block-codec.ts";
export { computeCrc64, Crc64 } from "./crc64.ts";
export { loadNativeCrc64 } from "./native-crc64.ts";
export { type CrcOffload, startCrcOffload } from "./crc-offload.ts";
export { isMongodumpArchiveError, MongodumpArchiveError, type MongodumpArchiveErrorCode } from "./errors.ts";
export {
  ARCHIVE_FORMAT_VERSION,
  formatNamespace,
  listDataNamespaces,
  MAX_DOCUMENT_BYTES,
  OPLOG_NAMESPACE,
  splitNamespace,
} from "./format.ts";
export { ArchiveScanner, type ScanOptions } from "./archive-scanner.ts";
export { readArchiveStructure, readMongodumpArchive, type ReadArchiveOptions } from "./read-archive.ts";
export { summarizeArchive, type ArchiveSummary, type NamespaceSummary } from "./summarize-archive.ts";
export type {
  ArchiveEvent,
  ArchiveHeader,
  ArchivePrelude,
  ArchiveSource,
  ArchiveWriteItem,
  CollectionMetadata,
  CollectionSpec,
} from "./types.ts";
export { ArchiveEncoder, writeMongodumpArchive, type WriteArchiveOptions } from "./write-archive.ts";
