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
