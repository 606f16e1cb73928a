// Public API of dumping and restoring (native tools or built-in), plain or through the
// `.enc.dbvault` pipeline. Everything else in this folder is internal; mongodump-archive/ has
// its own API.
export { readArchivePrelude, type ArchivePrelude } from "./archive-prelude.ts";
export { AGENT_VERSION } from "./agent-version.ts";
export { RAW_INSERT_MODE } from "./builtin/raw-insert.ts";
export { finishInterruptedCopies } from "./builtin/interrupted-copies.ts";
export { removeLeftoverStaging } from "./builtin/staging.ts";
export { removeAbandonedCopies } from "./private-copy.ts";
export { describeUriHosts, hasUriPassword, readUriDatabase, redactSecrets } from "./connection-string.ts";
export {
  type BackupStream,
  type BackupStreamOptions,
  createBackupStream,
  type RestoreEncryptedOptions,
  restoreFromEncrypted,
  VERIFYING_LABEL,
  verifyEncryptedBackup,
} from "./encrypted.ts";
export { type DrillOutcome, DrillError, runRestoreDrill } from "./drill.ts";
export { DumpError, type DumpErrorCode, isDumpError } from "./errors.ts";
export { chooseEngine, type EngineChoice } from "./native/find-tools.ts";
export { dumpDatabase, restoreDatabase } from "./operations.ts";
export type {
  ByteSource,
  Consistency,
  ConsistentAt,
  CollectionRestoreStats,
  DumpEngine,
  DumpOptions,
  DumpResult,
  OperationOptions,
  Progress,
  ProgressListener,
  RestoreOptions,
  RestoreResult,
  ToolsConfig,
} from "./types.ts";
