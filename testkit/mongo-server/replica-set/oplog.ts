// The replica set's `local.oplog.rs`: a capped collection of entries in MongoDB 7.0's shape, one
// for every write, with increasing `ts`. It is kept twice over the same bytes: as a collection
// (so find, count and listCollections see it as on mongod) and as an ordered list with positions
// (so tailing cursors can ask "what came after position N" without rescanning).
import { Long, Timestamp } from "bson";
import type { CollectionState, StoredDocument } from "../collection-state";
import { CommandError } from "../errors";
import { composeDocument } from "../raw-bson";
import type { ServerState } from "../server-state";

type Document = Record<string, unknown>;

/** An oplog position as replication names it: timestamp and term. */
export type OpTime = { ts: Timestamp; t: Long };

type Entry = { position: number; stored: StoredDocument };

/** 256 MiB: far below mongod's 990 MB minimum, but more than any test writes. */
export const DEFAULT_OPLOG_SIZE_BYTES = 256 * 1024 * 1024;

export const NULL_OP_TIME: OpTime = { ts: new Timestamp({ t: 0, i: 0 }), t: Long.fromNumber(-1) };

export class Oplog {
  readonly collection: CollectionState;
  private readonly entries: Entry[] = [];
  private head = 0;
  private nextPosition = 1;
  private readonly listeners = new Set<() => void>();
  lastOpTime: OpTime = NULL_OP_TIME;
  lastWallTime = new Date(0);

  constructor(
    private readonly state: ServerState,
    private readonly sizeBytes: number,
    private readonly currentTerm: () => number,
  ) {
    this.collection = state.createCollection("local", "oplog.rs", "collection", { capped: true, size: Long.fromNumber(sizeBytes) });
  }

  /**
   * Writes one entry: `head` fields, then ts, t, v and wall as mongod orders them, then `tail`
   * (prevOpTime). Returns the entry's optime.
   */
  append(head: Document, tail: Document = {}): OpTime {
    const { seconds, increment } = this.state.tickClusterTime();
    const opTime: OpTime = { ts: new Timestamp({ t: seconds, i: increment }), t: Long.fromNumber(this.currentTerm()) };
    const wall = new Date();
    const raw = composeDocument({ ...head, ts: opTime.ts, t: opTime.t, v: Long.fromNumber(2), wall, ...tail });
    const position = this.nextPosition++;
    this.entries.push({ position, stored: this.collection.appendUnkeyed(raw, `oplog:${position}`) });
    this.lastOpTime = opTime;
    this.lastWallTime = wall;
    this.trim();
    this.notify();
    return opTime;
  }

  private notify(): void {
    const listeners = [...this.listeners];
    this.listeners.clear();
    for (const listener of listeners) listener();
  }

  /**
   * Keeps an entry another member wrote, byte for byte (a secondary's oplog is its primary's):
   * `ts`, `t` and `wall` are the entry's own.
   */
  appendReplicated(raw: Buffer, opTime: OpTime, wall: Date): void {
    const position = this.nextPosition++;
    this.entries.push({ position, stored: this.collection.appendUnkeyed(raw, `oplog:${position}`) });
    this.lastOpTime = opTime;
    this.lastWallTime = wall;
    this.trim();
    this.notify();
  }

  /** The position of the newest entry (0 before the first). */
  get lastPosition(): number {
    return this.nextPosition - 1;
  }

  /** Every entry still kept, oldest first. */
  readAll(): { raw: Buffer; position: number }[] {
    return this.entries.slice(this.head).map((entry) => ({ raw: entry.stored.raw, position: entry.position }));
  }

  /** Entries after `position`, oldest first; throws CappedPositionLost when some were trimmed. */
  readAfter(position: number): { raw: Buffer; position: number }[] {
    if (position < this.lastPosition) this.assertKept(position + 1);
    const oldest = this.entries[this.head]?.position ?? this.nextPosition;
    return this.entries.slice(this.head + Math.max(0, position + 1 - oldest)).map((entry) => ({ raw: entry.stored.raw, position: entry.position }));
  }

  /** Throws CappedPositionLost (136), as mongod fails a tailing cursor that fell off the oplog, when the entry at `position` has been trimmed. */
  assertKept(position: number): void {
    const oldest = this.entries[this.head]?.position ?? this.nextPosition;
    if (position < oldest) {
      throw new CommandError(136, `CollectionScan died due to position in capped collection being deleted. Last seen record id: RecordId(${position - 1})`);
    }
  }

  /** Resolves at the next append or after `timeoutMs`; `cancel` stops waiting early. */
  waitForAppend(timeoutMs: number): { done: Promise<void>; cancel: () => void } {
    let finish: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(() => finish(), timeoutMs);
      timer.unref?.();
      finish = () => {
        clearTimeout(timer);
        this.listeners.delete(finish);
        resolve();
      };
      this.listeners.add(finish);
    });
    return { done, cancel: () => finish() };
  }

  // Oldest entries go once the oplog is over its size, as in a capped collection; one always stays.
  private trim(): void {
    while (this.collection.dataBytes > this.sizeBytes && this.entries.length - this.head > 1) {
      this.collection.deleteDocument(this.entries[this.head]!.stored);
      this.head++;
    }
    if (this.head > 4096 && this.head * 2 > this.entries.length) {
      this.entries.splice(0, this.head);
      this.head = 0;
    }
  }
}
