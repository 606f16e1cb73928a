// The oplog position of a decoded BSON value; positions themselves (their type, order and "t,i"
// form) are protocol/oplog-position.ts.
import { Timestamp } from "mongodb";
import type { OplogTime } from "../../../../protocol/oplog-position.ts";

/** The {t, i} of a BSON Timestamp value, or undefined when `value` is not one; never throws. */
export function readTimestamp(value: unknown): OplogTime | undefined {
  if (!(value instanceof Timestamp)) return undefined;
  return { t: value.t, i: value.i };
}
