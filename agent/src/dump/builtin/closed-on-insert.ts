// A server that closes the connection on an insert instead of refusing a document: FerretDB 1.x
// does so for values it does not store (a Decimal128, NaN, JavaScript code, a symbol, MinKey or
// MaxKey…), and the driver then says only "connection 1 to HOST closed". The documents of the
// batch are looked through for what such a server cannot take, field names starting with "$" or
// holding a dot included, so that the error says why.
import { onDemand } from "bson";
import { DumpError } from "../errors.ts";
import { wrapDatabaseError } from "./client.ts";

const TYPE_DOUBLE = 0x01;
const TYPE_DOCUMENT = 0x03;
const TYPE_ARRAY = 0x04;
const TYPE_CODE_WITH_SCOPE = 0x0f;

/** The BSON types FerretDB 1.x does not store, as people name them. */
const UNSTORED_TYPES: Record<number, string> = {
  6: "undefined",
  12: "a DBPointer",
  13: "JavaScript code",
  14: "a symbol",
  [TYPE_CODE_WITH_SCOPE]: "JavaScript code with scope",
  19: "a Decimal128",
  255: "MinKey",
  127: "MaxKey",
};

/** At most this many kinds are named in one message. */
const NAMED_KINDS = 4;

/** Whether the driver's error is the connection going away (not a refusal the server sent). */
function isClosedConnection(cause: unknown): boolean {
  const { name, message } = (cause ?? {}) as { name?: string; message?: string };
  return name === "MongoNetworkError" || /\bconnection\b.*\bclosed\b/.test(message ?? "");
}

/** What of `raw` (a BSON document) FerretDB-like servers refuse, as "KIND (field "PATH")" by kind, into `found`. */
function collectUnstorable(raw: Uint8Array, offset: number, path: string, inArray: boolean, found: Map<string, string>): void {
  const view = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  for (const [type, nameOffset, nameLength, valueOffset, length] of onDemand.parseToElements(raw, offset)) {
    if (found.size >= NAMED_KINDS) return;
    const name = view.toString("utf8", nameOffset, nameOffset + nameLength);
    const field = inArray ? `${path}.${name}` : path ? `${path}.${name}` : name;
    const note = (kind: string) => {
      if (!found.has(kind)) found.set(kind, field);
    };
    if (!inArray && name.startsWith("$")) note(`a field name starting with "$"`);
    if (!inArray && name.includes(".")) note("a field name containing a dot");
    if (type === TYPE_DOUBLE && !Number.isFinite(view.readDoubleLE(valueOffset))) note("NaN or an infinite double");
    const unstored = UNSTORED_TYPES[type];
    if (unstored) note(unstored);
    if (type === TYPE_ARRAY && inArray) note("an array inside an array");
    // An embedded document or array: its own bytes start at the value (length included).
    if (type === TYPE_DOCUMENT || type === TYPE_ARRAY) collectUnstorable(raw.subarray(valueOffset, valueOffset + length), 0, field, type === TYPE_ARRAY, found);
  }
}

/** What FerretDB does not accept, found in the documents given to `add`: the first field of each kind. */
export class UnacceptedValues {
  private readonly found = new Map<string, string>();

  /** Looks through one BSON document (until enough kinds are known); never throws. */
  add(document: Uint8Array): void {
    if (this.found.size >= NAMED_KINDS) return;
    try {
      collectUnstorable(document, 0, "", false, this.found);
    } catch {
      // Not valid BSON: nothing more can be said of it.
    }
  }

  get isEmpty(): boolean {
    return this.found.size === 0;
  }

  /** "documents holding KIND (field "F"), …. FerretDB does not …" (what was found and FerretDB's rules). */
  describe(): string {
    const kinds = [...this.found].map(([kind, field]) => `${kind} (field "${field}")`).join(", ");
    const names = [...this.found.keys()].some((kind) => kind.startsWith("a field name"));
    const values = [...this.found.keys()].some((kind) => !kind.startsWith("a field name"));
    const why = [
      names ? "FerretDB does not accept field names starting with `$` or containing dots" : "",
      values
        ? "FerretDB does not store Decimal128, NaN or infinite doubles, JavaScript code, symbols, MinKey, MaxKey, DBPointer, undefined or arrays inside arrays"
        : "",
    ]
      .filter(Boolean)
      .join("; ");
    return `documents holding ${kinds}. ${why}`;
  }
}

/** What to do about it, for either engine. */
export const UNACCEPTED_VALUES_HINT =
  "restore this backup into MongoDB, or change those fields in the source database and back it up again; the backup itself is intact";

/**
 * The error of a failed insert of `documents` into `target`: when the server closed the
 * connection and the batch holds what FerretDB does not accept, a DumpError naming it and why;
 * otherwise the driver's error as wrapDatabaseError words it. Never throws.
 */
export function describeFailedInsert(cause: unknown, documents: Uint8Array[], target: string, uri: string): DumpError {
  if (!isClosedConnection(cause)) return wrapDatabaseError(cause, `inserting into ${target}`, uri);
  const found = new UnacceptedValues();
  for (const document of documents) found.add(document);
  if (found.isEmpty) return wrapDatabaseError(cause, `inserting into ${target}`, uri);
  return new DumpError("database-error", `inserting into ${target} failed: the server closed the connection on ${found.describe()}; nothing was replaced`, {
    hint: UNACCEPTED_VALUES_HINT,
  });
}
