// A replica set as one member sees it: the primary of a one-member set, or (`secondaryOf`) the
// secondary of a two-member set that copies its primary's oplog (replicator.ts). What a client sees of
// it: the set's name, the member's host, the term and election id, the topology version awaitable
// hellos wait on, and the oplog. A step-down makes it a secondary for a moment (writes are
// refused), then it wins the election of the next term, as the only electable member would.
import { Long, ObjectId } from "bson";
import type { ServerState } from "../server-state";
import { DEFAULT_OPLOG_SIZE_BYTES, Oplog } from "./oplog";
import { DEFAULT_TRANSACTION_ENTRY_BYTES, Transactions } from "./transactions";

export type ReplicaSetOptions = {
  /** The set's name (`--replSet NAME`). */
  name: string;
  /** Bytes the oplog keeps before dropping its oldest entries; default 256 MiB. */
  oplogSizeBytes?: number;
  /** Operation bytes a transaction's oplog entry holds before it is split (partialTxn); ~16 MiB. */
  maxTransactionEntryBytes?: number;
  /** How often the primary writes its periodic no-op when nothing else was written; 10 s as mongod, 0 for never. */
  periodicNoopIntervalMs?: number;
};

/** How a secondary member knows its set: the primary's host, which it also syncs from. */
export type SecondaryRole = { primaryHost: string };

/** mongod's `periodicNoopIntervalSecs` default: an idle primary's oplog still moves every 10 s. */
export const PERIODIC_NOOP_INTERVAL_MS = 10_000;

/** How long a stepped-down member stays a secondary before it is elected again. */
const ELECTION_DELAY_MS = 100;

export class ReplicaSet {
  readonly name: string;
  readonly oplog: Oplog;
  readonly transactions: Transactions;
  term = 1;
  isPrimary = true;
  private election: ReturnType<typeof setTimeout> | undefined;
  electionDate = new Date();
  private readonly processId = new ObjectId();
  private topologyCounter = 0;
  private readonly topologyListeners = new Set<() => void>();
  private readonly noopTimer: ReturnType<typeof setInterval> | undefined;
  /** The other members' hosts, as a primary lists them in hello (a secondary added itself). */
  private readonly otherMembers: string[] = [];
  /** Set on a secondary member: it is never elected, and its oplog holds only the primary's entries. */
  readonly secondaryOf: SecondaryRole | undefined;

  constructor(state: ServerState, options: ReplicaSetOptions, secondaryOf?: SecondaryRole) {
    this.name = options.name;
    this.secondaryOf = secondaryOf;
    this.oplog = new Oplog(state, options.oplogSizeBytes ?? DEFAULT_OPLOG_SIZE_BYTES, () => this.term);
    if (secondaryOf) this.isPrimary = false;
    else this.oplog.append({ op: "n", ns: "", o: { msg: "initiating set" } });
    this.transactions = new Transactions(this.oplog, options.maxTransactionEntryBytes ?? DEFAULT_TRANSACTION_ENTRY_BYTES);
    // As mongod's NoopWriter: each interval, a primary whose newest entry is the one it saw last
    // time writes {msg: "periodic noop"}, so readers of an idle oplog (majority reads, change
    // streams, oplog shipping) still see time move on.
    const every = options.periodicNoopIntervalMs ?? PERIODIC_NOOP_INTERVAL_MS;
    if (every > 0) {
      let seen = this.oplog.lastOpTime;
      this.noopTimer = setInterval(() => {
        if (this.isPrimary && this.oplog.lastOpTime === seen) this.oplog.append({ op: "n", ns: "", o: { msg: "periodic noop" } });
        seen = this.oplog.lastOpTime;
      }, every);
      this.noopTimer.unref?.();
    }
  }

  /** Every member's host, the primary first, as hello lists them; `self` is this member's. */
  hostsSeenFrom(self: string): string[] {
    return this.secondaryOf ? [this.secondaryOf.primaryHost, self] : [self, ...this.otherMembers];
  }

  /** The primary's host as this member knows it; undefined between terms. */
  primaryHostSeenFrom(self: string): string | undefined {
    if (this.secondaryOf) return this.secondaryOf.primaryHost;
    return this.isPrimary ? self : undefined;
  }

  /** A secondary joined (a primary lists it from now on, so drivers monitor it). */
  addMember(host: string): void {
    if (!this.otherMembers.includes(host)) this.otherMembers.push(host);
    this.changeTopology();
  }

  /** A secondary left. */
  removeMember(host: string): void {
    const at = this.otherMembers.indexOf(host);
    if (at < 0) return;
    this.otherMembers.splice(at, 1);
    this.changeTopology();
  }

  /** `{processId, counter}`: an awaitable hello waits while the client's copy is current. */
  get topologyVersion(): { processId: ObjectId; counter: Long } {
    return { processId: this.processId, counter: Long.fromNumber(this.topologyCounter) };
  }

  /** mongod's election id: 0x7fffffff followed by the term as 8 bytes. */
  get electionId(): ObjectId {
    const bytes = Buffer.alloc(12);
    bytes.writeUInt32BE(0x7fffffff, 0);
    bytes.writeBigUInt64BE(BigInt(this.term), 4);
    return new ObjectId(bytes);
  }

  /** Whether a client's topologyVersion is this server's current one. */
  isCurrentTopology(version: { processId?: unknown; counter?: unknown }): boolean {
    return String(version.processId) === this.processId.toHexString() && Number(version.counter) === this.topologyCounter;
  }

  /** Resolves when the topology changes or after `timeoutMs`. */
  waitForTopologyChange(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.topologyListeners.delete(finish);
        resolve();
      };
      const timer = setTimeout(finish, timeoutMs);
      timer.unref?.();
      this.topologyListeners.add(finish);
    });
  }

  /**
   * Steps down: a secondary at once (the topology version changes, waking awaitable hellos),
   * then, ELECTION_DELAY_MS later, the primary of the next term, which writes its "new primary"
   * no-op and changes the topology version again. Ending the open cursors is the caller's part.
   */
  stepDown(): void {
    if (!this.isPrimary || this.secondaryOf) return;
    this.isPrimary = false;
    this.changeTopology();
    this.election = setTimeout(() => this.winElection(), ELECTION_DELAY_MS);
    this.election.unref?.();
  }

  /** Releases every waiting hello (the server is stopping). */
  close(): void {
    clearTimeout(this.election);
    clearInterval(this.noopTimer);
    this.wakeTopologyListeners();
  }

  private winElection(): void {
    this.term++;
    this.electionDate = new Date();
    this.isPrimary = true;
    this.oplog.append({ op: "n", ns: "", o: { msg: "new primary" } });
    this.changeTopology();
  }

  private changeTopology(): void {
    this.topologyCounter++;
    this.wakeTopologyListeners();
  }

  private wakeTopologyListeners(): void {
    for (const listener of [...this.topologyListeners]) listener();
  }
}
