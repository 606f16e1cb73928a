// Oplog positions, as the server, the agent and the CLI write and read them: a BSON timestamp's
// seconds and increment ({t, i}), ordered, written "t,i", and the moment a user names (an ISO time
// to the second, or a position) read the same way on every side.
import { type Static, Type as T } from "@sinclair/typebox";

/** An oplog position: seconds since the epoch and the increment within that second (both uint32). */
export const OplogTime = T.Object({ t: T.Integer({ minimum: 0, maximum: 0xffff_ffff }), i: T.Integer({ minimum: 0, maximum: 0xffff_ffff }) });
export type OplogTime = Static<typeof OplogTime>;

/** The regular expression of "t,i": two unsigned decimals without leading zeros. */
export const OPLOG_TIME_TEXT = /^(0|[1-9][0-9]{0,9}),(0|[1-9][0-9]{0,9})$/;
const U32 = 2 ** 32;
/** The largest increment: a moment named to the second takes every entry written in it. */
export const LAST_INCREMENT = 0xffff_ffff;

/** "t,i", the form positions take in URLs, answers, messages and the CLI. */
export function formatOplogTime(time: OplogTime): string {
  return `${time.t},${time.i}`;
}

/** Reads "t,i"; undefined when it is not two unsigned 32-bit decimals. */
export function parseOplogTime(text: string): OplogTime | undefined {
  const match = OPLOG_TIME_TEXT.exec(text);
  if (!match) return undefined;
  const t = Number(match[1]);
  const i = Number(match[2]);
  return t < U32 && i < U32 ? { t, i } : undefined;
}

/** Negative, zero or positive as `a` is before, at or after `b`. */
export function compareOplogTimes(a: OplogTime, b: OplogTime): number {
  return a.t === b.t ? a.i - b.i : a.t - b.t;
}

/** The position as the 64-bit number MongoDB orders timestamps by (seconds high, increment low). */
export function oplogTimeToBigInt(time: OplogTime): bigint {
  return (BigInt(time.t) << 32n) | BigInt(time.i);
}

/** The inverse of oplogTimeToBigInt. */
export function oplogTimeFromBigInt(value: bigint): OplogTime {
  return { t: Number(value >> 32n), i: Number(value & 0xffffffffn) };
}

// A time to the second with its zone; a fraction of zeros names the same second.
const ISO_SECOND = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.0{1,3})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The position a moment names: "t,i" as it is; an ISO time to the second with its zone as the last
 * position of that second (every write of it included). Undefined for anything else, or a second
 * before 1970 or past what an oplog timestamp holds. The server's `at` and the CLI's `--until`
 * both read a moment through it; each says in its own words what it refused.
 */
export function parseMoment(text: string): OplogTime | undefined {
  const position = parseOplogTime(text);
  if (position) return position;
  const millis = ISO_SECOND.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(millis) || millis < 0 || millis / 1000 >= U32) return undefined;
  return { t: Math.floor(millis / 1000), i: LAST_INCREMENT };
}
