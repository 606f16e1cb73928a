// Continuous oplog shipping (point-in-time recovery), as the agent and the server share it: how
// an oplog position is written, and what the agent says of each slice it uploads. The slice's
// own layout and the chain rules are in docs/archive-format.md ("Oplog slices").
import { type Static, Type as T } from "@sinclair/typebox";
import { OPLOG_TIME_TEXT } from "./oplog-position";

/** The recovery point objective: at most this much of acknowledged writes is not yet on the server. */
export const PITR_RPO_MS = 15_000;
/**
 * A slice is sealed once it has held entries this long, leaving the rest of the recovery point for
 * reading the entries, sealing the slice and uploading it (bench/pitr-shipping.ts measured the
 * lag's p99 over 15 s when slices were held for the whole 15 s)...
 */
export const SLICE_MAX_AGE_MS = 10_000;
/**
 * ...or once its entries reach this many bytes, whichever comes first. The shipper holds a
 * slice's entries until it seals them, beside everything else the daemon does in its 150 MB
 * (a backup can run at the same time): 8 MiB rather than the 16 MiB ceiling keeps that
 * share small; a server writing 5,000 1 KB documents a second still gets a slice every ~4 s.
 */
export const SLICE_MAX_ENTRY_BYTES = 8 * 1024 * 1024;
/**
 * A sealed slice file is at most this large: one entry may be a whole 16 MiB document (it gets a
 * slice of its own), plus the preamble and the format's overhead.
 */
export const SLICE_MAX_FILE_BYTES = 17 * 1024 * 1024;

// Query strings carry numbers as text: whole decimals, below 2^31 (a Postgres integer).
const Count = T.String({ pattern: "^(0|[1-9][0-9]{0,8})$" });
const TimeText = T.String({ pattern: OPLOG_TIME_TEXT.source, description: "an oplog position, seconds,increment" });

/**
 * What the agent says of a slice it uploads (the query of PUT /api/agent/pitr/slices; the body is
 * the sealed file). `start` is exclusive and `end` inclusive: the slice covers (start, end].
 * `reason` says why a slice with sequence 0 starts a chain: shipping started, or the oplog rolled
 * over past the last position shipped (a gap from `start` of the chain before).
 */
export const SliceUploadQuery = T.Object({
  database: T.String({ minLength: 1, maxLength: 64 }),
  chain: T.String({ pattern: "^[0-9a-f]{32}$" }),
  sequence: Count,
  start: TimeText,
  end: TimeText,
  first: T.Optional(TimeText),
  last: T.Optional(TimeText),
  entries: Count,
  sha256: T.String({ pattern: "^[0-9a-f]{64}$" }),
  reason: T.Union([T.Literal("continues"), T.Literal("started"), T.Literal("rollover")]),
  rolloverFrom: T.Optional(TimeText),
});
export type SliceUploadQuery = Static<typeof SliceUploadQuery>;

/** The path agents upload slices to. */
export const SLICE_UPLOAD_PATH = "/api/agent/pitr/slices";
