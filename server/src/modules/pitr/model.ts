import { t } from "elysia";

const Position = t.Object({
  /** The oplog position, seconds,increment. */
  ts: t.String(),
  /** Its seconds as a time. */
  at: t.String(),
});

export const pitrModel = {
  switch: t.Object({ enabled: t.Boolean({ error: "enabled must be true or false" }) }),
  sliceParams: t.Object({ sliceId: t.String({ minLength: 1, maxLength: 64, error: "sliceId is required" }) }),
  restoreParams: t.Object({ restoreId: t.String({ minLength: 1, maxLength: 64, error: "restoreId is required" }) }),
  databaseParams: t.Object({ databaseId: t.String({ minLength: 1, maxLength: 64, error: "databaseId is required" }) }),
};

export const pitrAnswers = {
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
    slices: t.Integer(),
    /** Seconds the agent's shipping is behind, as it last reported with a heartbeat; null without a recent report. */
    lagSeconds: t.Union([t.Integer(), t.Null()]),
    bytes: t.Integer(),
  }),
};
