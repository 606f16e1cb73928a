// What the shipper reads of every oplog entry it tails: its position, its kind and its namespace,
// located in the entry's bytes by bson's element index (bson's onDemand parser) with nothing else
// decoded. Deserializing every entry whole, its document (`o`) included, was half the shipper's
// reading CPU at 5,000 entries/s and ~8 MB of its resident set (bench/README.md); a command
// (`op: "c"`: DDL, transactions), the only kind whose body the filter needs, it decodes itself.
import { BSON } from "bson";
import type { OplogTime } from "../../../protocol/oplog-position.ts";

export type EntryHeader = { ts: OplogTime; op: string; ns: string | undefined };

const STRING = 2;
const TIMESTAMP = 17;
const { parseToElements, ByteUtils, NumberUtils } = BSON.onDemand;

// The three names are two ASCII letters each: compared as one number, no string made per field.
const twoLetters = (name: string) => (name.charCodeAt(0) << 8) | name.charCodeAt(1);
const TS = twoLetters("ts");
const OP = twoLetters("op");
const NS = twoLetters("ns");

/** The entry's `ts`, `op` and `ns`; throws when `raw` is not BSON or has no `ts` or `op`. */
export function readEntryHeader(raw: Uint8Array): EntryHeader {
  let ts: OplogTime | undefined;
  let op: string | undefined;
  let ns: string | undefined;
  for (const [type, nameOffset, nameLength, offset, length] of parseToElements(raw)) {
    if (nameLength !== 2) continue;
    const name = (raw[nameOffset]! << 8) | raw[nameOffset + 1]!;
    // A string is its length (4 bytes), its UTF-8 bytes and a NUL; a timestamp is the increment, then the seconds.
    if (name === TS && type === TIMESTAMP) ts = { t: NumberUtils.getUint32LE(raw, offset + 4), i: NumberUtils.getUint32LE(raw, offset) };
    else if (name === OP && type === STRING) op = ByteUtils.toUTF8(raw, offset + 4, offset + length - 1, true);
    else if (name === NS && type === STRING) ns = ByteUtils.toUTF8(raw, offset + 4, offset + length - 1, true);
  }
  if (!ts || op === undefined) throw new Error("an oplog entry without a timestamp (ts) or an operation (op)");
  return { ts, op, ns };
}
