// The limits a MongoDB 7.0 server advertises in `hello`; the driver sizes its batches by them and
// the server enforces them, so both sides of the test double must agree on the same numbers.

export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;
export const MAX_MESSAGE_SIZE_BYTES = 48_000_000;
export const MAX_WRITE_BATCH_SIZE = 100_000;
export const MAX_WIRE_VERSION = 21;

/** What a server states in `hello` and enforces on writes; a test may start one stating less. */
export interface WriteLimits {
  maxMessageSizeBytes: number;
  maxWriteBatchSize: number;
}
export const DEFAULT_WRITE_LIMITS: WriteLimits = { maxMessageSizeBytes: MAX_MESSAGE_SIZE_BYTES, maxWriteBatchSize: MAX_WRITE_BATCH_SIZE };
/**
 * The version reported by default: a 7.0 patch release that knows `bypassEmptyTsReplacement`
 * (7.0.13 and later do). Tests of what clients do on older servers start one with `version`.
 */
export const DEFAULT_SERVER_VERSION = "7.0.14";
/** Documents a find returns before its first getMore when the client names no batchSize. */
export const DEFAULT_FIRST_BATCH_SIZE = 101;
/** mongod fills a batch up to 16 MiB of documents; one larger document still goes alone. */
export const MAX_BATCH_BYTES = MAX_BSON_OBJECT_SIZE;
export const CURSOR_IDLE_TIMEOUT_MS = 10 * 60 * 1000;
