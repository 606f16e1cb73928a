// Collects one slice's entries and seals them into an `.enc.dbvault` file of payload kind
// oplog-slice: the preamble no-op, then the entries' bytes as read (docs/archive-format.md).
// Memory, per slice (issue 25 §6: the daemon under 150 MB): the entries are copied into chunks of
// their own as they come, so the driver's replies they were cut from are freed at once (an entry
// is a view of its whole reply, up to 16 MiB of other entries), and the seal streams those chunks
// through the encryptor on this thread: no concatenated plaintext, and no compression thread
// started per slice (~10-30 MB each). The sealed frames go straight to their writer (the spool
// file) as they come: a slice's file is never whole in memory either.
import { createHash } from "node:crypto";
import { BSON, Timestamp } from "bson";
import { createEncryptStream } from "../../archive/index.ts";
import type { OplogTime } from "../../../../protocol/oplog-position.ts";

/** Where a slice stands in its chain and what it covers: (start, end]. */
export type SlicePlace = { database: string; chain: string; sequence: number; start: OplogTime };

/** A sealed slice as the server is told of it: where it stands, what it covers, its file's size and hash. */
export type SealedSlice = SlicePlace & {
  end: OplogTime;
  first?: OplogTime;
  last?: OplogTime;
  entries: number;
  size: number;
  sha256: string;
};

/** Receives a sealed slice's file, frame by frame, in order; the next frame waits for it. */
export type FrameWriter = (frame: Uint8Array) => Promise<void>;

export const PREAMBLE_MESSAGE = "dbvault oplog slice";

const toTimestamp = (time: OplogTime) => new Timestamp({ t: time.t, i: time.i });

/** Bytes of one chunk the entries are copied into (a larger entry gets a chunk of its own size). */
const CHUNK_BYTES = 1024 * 1024;

/** Gathers entries for one slice, in oplog order; `seal` encrypts them with the master key. */
export class SliceBuilder {
  /** Full chunks of copied entries, then the one being filled (`#used` bytes of it). */
  readonly #chunks: Uint8Array[] = [];
  #current: Uint8Array | undefined;
  #used = 0;
  #count = 0;
  #bytes = 0;
  #first: OplogTime | undefined;
  #last: OplogTime | undefined;
  /** When the first entry arrived (ms), for the age rule (SLICE_MAX_AGE_MS). */
  startedAt: number | undefined;

  constructor(readonly place: SlicePlace) {}

  get entryCount(): number {
    return this.#count;
  }

  get entryBytes(): number {
    return this.#bytes;
  }

  /** Copies `raw`: the caller's buffer (a view of a driver reply) is not kept. */
  add(raw: Uint8Array, ts: OplogTime, now: number): void {
    if (!this.#current || this.#used + raw.byteLength > this.#current.byteLength) {
      if (this.#current) this.#chunks.push(this.#current.subarray(0, this.#used));
      this.#current = new Uint8Array(Math.max(CHUNK_BYTES, raw.byteLength));
      this.#used = 0;
    }
    this.#current.set(raw, this.#used);
    this.#used += raw.byteLength;
    this.#count += 1;
    this.#bytes += raw.byteLength;
    this.#first ??= ts;
    this.#last = ts;
    this.startedAt ??= now;
  }

  /** Seals what was added as the slice covering (start, end], handing the file's frames to `write`. */
  async sealTo(end: OplogTime, sealing: { masterKey: Uint8Array } | { recipient: Uint8Array }, createdAt: Date, write: FrameWriter): Promise<SealedSlice> {
    const { database, chain, sequence, start } = this.place;
    const entries = this.#count;
    const preamble = BSON.serialize({
      op: "n",
      ns: "",
      ts: toTimestamp(start),
      o: { msg: PREAMBLE_MESSAGE, version: 1, database, chain, sequence, start: toTimestamp(start), end: toTimestamp(end), entries },
    });
    const stream = createEncryptStream({ ...sealing, payloadKind: "oplog-slice", compression: "zstd", createdAt, compressionThreads: 0 });
    const hash = createHash("sha256");
    let size = 0;
    // Read as the frames come (a paused stream holds them back), so at most a few frames wait.
    const written = (async () => {
      for await (const frame of stream as AsyncIterable<Buffer>) {
        hash.update(frame);
        size += frame.byteLength;
        await write(frame);
      }
    })();
    const chunks = this.#current ? [...this.#chunks, this.#current.subarray(0, this.#used)] : this.#chunks;
    try {
      for (const plaintext of [preamble, ...chunks]) await stream.writeCopied(plaintext);
      stream.end();
    } catch (error) {
      stream.destroy(error as Error);
    }
    await written;
    return {
      ...this.place,
      end,
      ...(this.#first ? { first: this.#first } : {}),
      ...(this.#last ? { last: this.#last } : {}),
      entries,
      size,
      sha256: hash.digest("hex"),
    };
  }

  /** Seals into memory: the slice and its file's bytes (tests, benches; shipping seals to the spool). */
  async seal(end: OplogTime, sealing: { masterKey: Uint8Array } | { recipient: Uint8Array }, createdAt: Date): Promise<SealedSlice & { bytes: Uint8Array }> {
    const frames: Uint8Array[] = [];
    const sealed = await this.sealTo(end, sealing, createdAt, async (frame) => void frames.push(frame));
    return { ...sealed, bytes: Buffer.concat(frames) };
  }
}
