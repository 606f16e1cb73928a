// Oplog positions: the `ts` of an entry as {t, i} (seconds, then order within the second), the
// form the agent takes on its command line and in restore requests.
import { Timestamp } from "mongodb";

export interface OplogTimestamp {
  t: number;
  i: number;
}

/** Negative, zero or positive as `a` is before, at or after `b`; never throws. */
export function compareTimestamps(a: OplogTimestamp, b: OplogTimestamp): number {
  return a.t - b.t || a.i - b.i;
}

/** The {t, i} of a BSON Timestamp value, or undefined when `value` is not one; never throws. */
export function readTimestamp(value: unknown): OplogTimestamp | undefined {
  if (!(value instanceof Timestamp)) return undefined;
  return { t: value.t, i: value.i };
}

/** "t,i" as the agent prints and reads positions; never throws. */
export function formatTimestamp(ts: OplogTimestamp): string {
  return `${ts.t},${ts.i}`;
}
