// Collects one slice's entries and seals them into an `.enc.dbvault` file of payload kind
// oplog-slice: the preamble no-op, then the entries' bytes as read (docs/archive-format.md).
import { createHash } from "node:crypto";
import { BSON, Timestamp } from "bson";
import { encryptBuffer } from "../../archive/index.ts";
import type { OplogTime } from "../../../../protocol/pitr.ts";

/** Where a slice stands in its chain and what it covers: (start, end]. */
export type SlicePlace = { database: string; chain: string; sequence: number; start: OplogTime };

/** A sealed slice: the file's bytes and what the server is told of it. */
export type SealedSlice = SlicePlace & {
  end: OplogTime;
  first?: OplogTime;
  last?: OplogTime;
  entries: number;
  size: number;
  sha256: string;
  bytes: Uint8Array;
};

export const PREAMBLE_MESSAGE = "dbvault oplog slice";

const toTimestamp = (time: OplogTime) => new Timestamp({ t: time.t, i: time.i });

/** Gathers entries for one slice, in oplog order; `seal` encrypts them with the master key. */
export class SliceBuilder {
  readonly #entries: Uint8Array[] = [];
  #bytes = 0;
  #first: OplogTime | undefined;
  #last: OplogTime | undefined;
  /** When the first entry arrived (ms), for the age rule (SLICE_MAX_AGE_MS). */
  startedAt: number | undefined;

  constructor(readonly place: SlicePlace) {}

  get entryCount(): number {
    return this.#entries.length;
  }

  get entryBytes(): number {
    return this.#bytes;
  }

  add(raw: Uint8Array, ts: OplogTime, now: number): void {
    this.#entries.push(raw);
    this.#bytes += raw.byteLength;
    this.#first ??= ts;
    this.#last = ts;
    this.startedAt ??= now;
  }

  /** Seals what was added as the slice covering (start, end]. */
  async seal(end: OplogTime, sealing: { masterKey: Uint8Array } | { recipient: Uint8Array }, createdAt: Date): Promise<SealedSlice> {
    const { database, chain, sequence, start } = this.place;
    const entries = this.#entries.length;
    const preamble = BSON.serialize({
      op: "n",
      ns: "",
      ts: toTimestamp(start),
      o: { msg: PREAMBLE_MESSAGE, version: 1, database, chain, sequence, start: toTimestamp(start), end: toTimestamp(end), entries },
    });
    const plaintext = Buffer.concat([preamble, ...this.#entries]);
    const bytes = await encryptBuffer(plaintext, { ...sealing, payloadKind: "oplog-slice", compression: "zstd", createdAt });
    return {
      ...this.place,
      end,
      ...(this.#first ? { first: this.#first } : {}),
      ...(this.#last ? { last: this.#last } : {}),
      entries,
      size: bytes.byteLength,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      bytes,
    };
  }
}
