import { t } from "elysia";
import { fileAnswer } from "../../lib/schema";

const Position = t.Object({
  /** The oplog position, seconds,increment. */
  ts: t.String(),
  /** Its seconds as a time. */
  at: t.String(),
});

export const pitrModel = {
  sliceParams: t.Object({ sliceId: t.String({ minLength: 1, maxLength: 64, error: "sliceId is required" }) }),
  restoreParams: t.Object({ restoreId: t.String({ minLength: 1, maxLength: 64, error: "restoreId is required" }) }),
  databaseParams: t.Object({ databaseId: t.String({ minLength: 1, maxLength: 64, error: "databaseId is required" }) }),
  userSliceParams: t.Object({
    databaseId: t.String({ minLength: 1, maxLength: 64, error: "databaseId is required" }),
    sliceId: t.String({ minLength: 1, maxLength: 64, error: "sliceId is required" }),
  }),
  sliceRange: t.Object({
    from: t.Optional(t.String({ maxLength: 40, error: "from must be a time or an oplog position" })),
    to: t.Optional(t.String({ maxLength: 40, error: "to must be a time or an oplog position" })),
  }),
  sliceQuery: t.Object({
    /** An ISO time with its zone or an oplog position "t,i"; absent: from the oldest slice. */
    from: t.Optional(t.String({ maxLength: 40, error: "from must be a time or an oplog position" })),
    to: t.Optional(t.String({ maxLength: 40, error: "to must be a time or an oplog position" })),
    offset: t.Optional(t.Integer({ minimum: 0, maximum: 10_000_000, error: "offset must be a whole number from 0" })),
    limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, error: "limit must be a whole number from 1 to 500" })),
  }),
};

export const pitrAnswers = {
  sliceList: t.Object({
    databaseId: t.String(),
    databaseName: t.String(),
    /** Oldest first; each covers (start, end] of the oplog. */
    slices: t.Array(
      t.Object({
        id: t.String(),
        chain: t.String(),
        sequence: t.Integer(),
        start: Position,
        end: Position,
        entries: t.Integer(),
        bytes: t.Integer(),
        sha256: t.String(),
        reason: t.String(),
      }),
    ),
    total: t.Integer(),
    /** The offset of the next page; null on the last. */
    nextOffset: t.Union([t.Integer(), t.Null()]),
  }),
  sliceStored: t.Object({ status: t.Literal("stored"), size: t.Integer() }),
  timeline: t.Object({
    databaseId: t.String(),
    databaseName: t.String(),
    /** Oplog time covered with no hole, oldest first: (from, to]. */
    ranges: t.Array(t.Object({ from: Position, to: Position, slices: t.Integer(), entries: t.Integer(), bytes: t.Integer() })),
    /** Oplog time not covered between two ranges, and why. */
    gaps: t.Array(t.Object({ from: Position, to: Position, reason: t.Union([t.Literal("rollover"), t.Literal("restarted"), t.Literal("missing")]) })),
    /** The completed backups consistent at one position, oldest first: where a restore to a moment starts. */
    bases: t.Array(t.Object({ id: t.String(), consistentAt: Position })),
    /**
     * What a restore to a moment can reach, oldest first: in each unbroken run of a chain, from the
     * oldest base backup consistent inside it to the run's end (the same windows a refused restore
     * names). A whole second is restorable from `from`'s second to the second before `to`'s.
     */
    restorable: t.Array(t.Object({ from: Position, to: Position })),
    slices: t.Integer(),
    /** Seconds the agent's shipping is behind, as it last reported with a heartbeat; null without a recent report. */
    lagSeconds: t.Union([t.Integer(), t.Null()]),
    /** Since when the agent has reported it cannot reach the database itself (its lag then grows); null while it answers or without a recent report. */
    unreachableSince: t.Union([t.String(), t.Null()]),
    bytes: t.Integer(),
  }),
};

/** A sealed oplog slice as stored, and a range of them as one zip: bytes, not JSON. */
export const sliceFileAnswers = {
  slice: {
    200: fileAnswer("The sealed oplog slice (.enc.dbvault) as stored"),
    206: fileAnswer("The requested byte range of it"),
  },
  archive: { 200: fileAnswer("A zip of the sealed slice files of the range, stored as they are") },
};
