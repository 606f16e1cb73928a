import { ObjectLockedError, ObjectNotFoundError, StorageUnavailableError, UploadIncompleteError } from "./errors";
import type { ObjectLockMode } from "./s3-object-lock";
import type { ByteRange, HttpSource, PutOptions, Storage, StoredObject } from "./types";

export type ReplicaSide = "primary" | "replica";
/** What a write that landed on one side only, or a read that had to fall back, is counted as. */
export type ReplicaFailure = { side: ReplicaSide; operation: string; key: string; error: Error };
export type RepairReport = { copiedToPrimary: number; copiedToReplica: number; missingOnPrimary: number; missingOnReplica: number };

type Settled<T> = { ok: true; value: T } | { ok: false; error: Error };
const settle = <T>(promise: Promise<T>): Promise<Settled<T>> =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error: error instanceof Error ? error : new Error(String(error)) }),
  );

/** An outage (or a side that simply lacks the object) is worth asking the other side; anything else (bad key, bad range, a locked object) is the answer. */
const worthFallingBack = (error: Error) => error instanceof StorageUnavailableError || error instanceof ObjectNotFoundError;

/**
 * STORAGE_REPLICA_URL: every object is written to two storages (a second bucket, region or
 * folder). A write succeeds when either side stores it (a backup never fails because one side is
 * down); the side that failed is counted (failures(), /metrics) and the repair pass copies the
 * object over later. Reads ask the primary first and the replica when the primary fails or lacks
 * the object. Deletes must reach both, so the repair pass never brings back a deleted object
 * from the side that missed the delete.
 */
export class ReplicatedStorage implements Storage {
  readonly kind: "file" | "s3";
  readonly objectLock: ObjectLockMode | null;
  private readonly failureCounts = new Map<string, number>();
  /** Objects a side is known to lack (a write it missed), until the repair pass or a delete settles them. */
  private missing = { primary: new Set<string>(), replica: new Set<string>() };

  constructor(
    readonly primary: Storage,
    readonly replica: Storage,
    private readonly onFailure: (failure: ReplicaFailure) => void = () => {},
  ) {
    this.kind = primary.kind;
    this.objectLock = primary.objectLock;
  }

  /** Writes (and deletes) one side failed while the other held, by side and operation, since start-up. */
  failures(): { side: ReplicaSide; operation: string; count: number }[] {
    return [...this.failureCounts].map(([label, count]) => {
      const [side, operation] = label.split(":") as [ReplicaSide, string];
      return { side, operation, count };
    });
  }

  /** How many objects each side is known to lack (set exactly by each repair pass). */
  missingCounts(): Record<ReplicaSide, number> {
    return { primary: this.missing.primary.size, replica: this.missing.replica.size };
  }

  private record(side: ReplicaSide, operation: string, key: string, error: Error) {
    const label = `${side}:${operation}`;
    this.failureCounts.set(label, (this.failureCounts.get(label) ?? 0) + 1);
    this.onFailure({ side, operation, key, error });
  }

  /** Runs a write on both sides: succeeds when either does (the other is recorded as missing it); throws the primary's error when both fail. */
  private async writeBoth<T>(
    operation: string,
    key: string,
    write: (storage: Storage, side: ReplicaSide) => Promise<T>,
    sideMissed: (error: Error) => boolean = (error) => error instanceof StorageUnavailableError,
  ): Promise<T> {
    const [primary, replica] = await Promise.all([settle(write(this.primary, "primary")), settle(write(this.replica, "replica"))]);
    if (primary.ok && replica.ok) return primary.value;
    if (!primary.ok && !replica.ok) throw preferredError(primary.error, replica.error);
    const [failedSide, failed] = primary.ok ? (["replica", replica] as const) : (["primary", primary] as const);
    if (!failed.ok && !sideMissed(failed.error)) throw failed.error; // the same request is wrong for one side only: not an outage
    if (operation === "put") this.missing[failedSide].add(key);
    this.record(failedSide, operation, key, (failed as { error: Error }).error);
    return primary.ok ? primary.value : (replica as { value: T }).value;
  }

  /** Runs a read on the primary, then on the replica when the primary is down or lacks the object. */
  private async readEither<T>(read: (storage: Storage) => Promise<T>): Promise<T> {
    try {
      return await read(this.primary);
    } catch (error) {
      if (!(error instanceof Error) || !worthFallingBack(error)) throw error;
      try {
        return await read(this.replica);
      } catch (replicaError) {
        throw replicaError instanceof ObjectNotFoundError && error instanceof StorageUnavailableError ? error : replicaError;
      }
    }
  }

  async put(key: string, body: ReadableStream<Uint8Array> | Uint8Array, options: PutOptions = {}) {
    const branches = bothBranches(body);
    return this.writeBoth("put", key, (storage, side) => releaseOnFailure(storage.put(key, branches[side], options), branches, side));
  }

  get(key: string, range?: ByteRange) {
    return this.readEither((storage) => storage.get(key, range));
  }

  async stat(key: string): Promise<StoredObject | null> {
    return this.readEither(async (storage) => {
      const found = await storage.stat(key);
      if (!found && storage === this.primary) throw new ObjectNotFoundError(key);
      return found;
    }).catch((error) => (error instanceof ObjectNotFoundError ? null : Promise.reject(error)));
  }

  async delete(key: string) {
    await this.deleteBoth(key, (storage) => storage.delete(key));
    this.missing.primary.delete(key);
    this.missing.replica.delete(key);
  }

  async deletePrefix(prefix: string) {
    const counts = await this.deleteBoth(prefix, (storage) => storage.deletePrefix(prefix));
    for (const set of Object.values(this.missing)) for (const key of set) if (key.startsWith(prefix)) set.delete(key);
    return Math.max(...counts);
  }

  /** A delete must reach both sides (else the repair pass would copy the object back); a lock on either keeps it. */
  private async deleteBoth<T>(key: string, remove: (storage: Storage) => Promise<T>): Promise<T[]> {
    const results = await Promise.all([settle(remove(this.primary)), settle(remove(this.replica))]);
    const locked = results.find((result) => !result.ok && result.error instanceof ObjectLockedError);
    if (locked && !locked.ok) throw locked.error;
    const [primary, replica] = results as [Settled<T>, Settled<T>];
    if (!primary.ok) throw primary.error;
    if (!replica.ok) {
      this.record("replica", "delete", key, replica.error);
      throw replica.error;
    }
    return [primary.value, replica.value];
  }

  async list(prefix: string): Promise<StoredObject[]> {
    const [primary, replica] = await Promise.all([settle(this.primary.list(prefix)), settle(this.replica.list(prefix))]);
    if (!primary.ok && !replica.ok) throw preferredError(primary.error, replica.error);
    if (!primary.ok) return (replica as { value: StoredObject[] }).value;
    if (!replica.ok) return primary.value;
    const byKey = new Map(replica.value.map((object) => [object.key, object]));
    for (const object of primary.value) byKey.set(object.key, object);
    return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async retain(key: string, until: Date) {
    // A side that lacks the object (a put it missed) gets it, locked, from the repair pass.
    await this.writeBoth("retain", key, (storage) => storage.retain(key, until), worthFallingBack);
  }

  /** Passes while either side works: the service can still store and serve backups. */
  async check() {
    const [primary, replica] = await Promise.all([settle(this.primary.check()), settle(this.replica.check())]);
    if (!primary.ok && !replica.ok) throw preferredError(primary.error, replica.error);
  }

  /** Each side's own health check, for the admin's view of storage. */
  async checkSides(): Promise<Record<ReplicaSide, string | null>> {
    const problem = (result: Settled<void>) => (result.ok ? null : result.error.message);
    const [primary, replica] = await Promise.all([settle(this.primary.check()), settle(this.replica.check())]);
    return { primary: problem(primary), replica: problem(replica) };
  }

  async writeUploadPart(uploadId: string, partNumber: number, offset: number, body: ReadableStream<Uint8Array> | Uint8Array, options: PutOptions = {}) {
    const branches = bothBranches(body);
    // Staged parts are not objects: a side that missed one fails its completion, which is counted there.
    const [primary, replica] = await Promise.all([
      settle(releaseOnFailure(this.primary.writeUploadPart(uploadId, partNumber, offset, branches.primary, options), branches, "primary")),
      settle(releaseOnFailure(this.replica.writeUploadPart(uploadId, partNumber, offset, branches.replica, options), branches, "replica")),
    ]);
    if (primary.ok) return primary.value;
    if (replica.ok) return replica.value;
    throw preferredError(primary.error, replica.error);
  }

  async completeUpload(uploadId: string, key: string, size: number, options?: { fileName?: string; retainUntil?: Date }) {
    // A side that was down while parts arrived holds too few of them: it missed the object, as in an outage.
    const missedParts = (error: Error) => error instanceof StorageUnavailableError || error instanceof UploadIncompleteError;
    await this.writeBoth("put", key, (storage) => storage.completeUpload(uploadId, key, size, options), missedParts);
  }

  async abortUpload(uploadId: string) {
    const [primary, replica] = await Promise.all([settle(this.primary.abortUpload(uploadId)), settle(this.replica.abortUpload(uploadId))]);
    if (!primary.ok && !replica.ok) throw preferredError(primary.error, replica.error);
  }

  httpSource(key: string, range?: ByteRange, expected?: { size: number; sha256?: string | null }): Promise<HttpSource> {
    return this.readEither((storage) => storage.httpSource(key, range, expected));
  }

  /**
   * Copies what one side lacks from the other (an object on one side only, or of another size) and
   * counts what is still missing afterwards. The primary wins where both hold a key with different
   * sizes. Not a mirror of deletes: an object on one side only is taken as a write that side missed.
   */
  async repair(options: { retainUntil?: (key: string) => Promise<Date | undefined> } = {}): Promise<RepairReport> {
    const [primaryList, replicaList] = await Promise.all([this.primary.list(""), this.replica.list("")]);
    const onPrimary = new Map(primaryList.map((object) => [object.key, object]));
    const onReplica = new Map(replicaList.map((object) => [object.key, object]));
    const report: RepairReport = { copiedToPrimary: 0, copiedToReplica: 0, missingOnPrimary: 0, missingOnReplica: 0 };
    const stillMissing = { primary: new Set<string>(), replica: new Set<string>() };
    const copy = async (key: string, from: Storage, to: Storage, side: ReplicaSide) => {
      try {
        const retainUntil = await options.retainUntil?.(key);
        const body = await from.get(key);
        // A put that fails before reading the body to its end must still let go of the source's reader (a file handle).
        await to.put(key, body, retainUntil ? { retainUntil } : {}).catch(async (error) => {
          if (!body.locked) await body.cancel(error).catch(() => {});
          throw error;
        });
        if (side === "primary") report.copiedToPrimary++;
        else report.copiedToReplica++;
      } catch (error) {
        // The object may have been deleted since the listing: then nothing is missing.
        if (error instanceof ObjectNotFoundError) return;
        stillMissing[side].add(key);
        this.record(side, "repair", key, error instanceof Error ? error : new Error(String(error)));
      }
    };
    for (const [key, object] of onPrimary) {
      const there = onReplica.get(key);
      if (!there || there.size !== object.size) await copy(key, this.primary, this.replica, "replica");
    }
    for (const key of onReplica.keys()) if (!onPrimary.has(key)) await copy(key, this.replica, this.primary, "primary");
    this.missing.primary = stillMissing.primary;
    this.missing.replica = stillMissing.replica;
    report.missingOnPrimary = stillMissing.primary.size;
    report.missingOnReplica = stillMissing.replica.size;
    return report;
  }
}

type Branches = Record<ReplicaSide, ReadableStream<Uint8Array> | Uint8Array> & { drop(side: ReplicaSide, reason: unknown): void };

/**
 * One body for each side, read in lockstep: the next chunk is read from the body only once every
 * side still writing has asked for it. So no chunk is buffered for a slower side (memory stays that
 * of one put), and the body's owner may reuse or free a chunk once the next is asked for, as with
 * a single storage (the upload route frees each chunk's memory then). `drop` takes a side that
 * failed out of the lockstep, whether or not its backend cancelled its branch.
 */
function bothBranches(body: ReadableStream<Uint8Array> | Uint8Array): Branches {
  if (body instanceof Uint8Array) return { primary: body, replica: body, drop() {} };
  const reader = body.getReader();
  const active = new Set<ReplicaSide>(["primary", "replica"]);
  type Next = { result: ReturnType<typeof reader.read> };
  const waiting = new Map<ReplicaSide, (next: Next) => void>();
  const readWhenAllAsked = () => {
    if (active.size === 0 || ![...active].every((side) => waiting.has(side))) return;
    const next = { result: reader.read() };
    next.result.catch(() => {}); // each waiting branch sees the failure itself
    for (const side of active) waiting.get(side)!(next);
    waiting.clear();
  };
  const drop = (side: ReplicaSide, reason: unknown) => {
    if (!active.delete(side)) return;
    waiting.delete(side);
    if (active.size === 0) void reader.cancel(reason).catch(() => {});
    else readWhenAllAsked();
  };
  const branch = (side: ReplicaSide) =>
    new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const next = await new Promise<Next>((resolve) => {
            waiting.set(side, resolve);
            readWhenAllAsked();
          });
          const { value, done } = await next.result;
          if (done) controller.close();
          else controller.enqueue(value);
        },
        cancel: (reason) => drop(side, reason),
      },
      { highWaterMark: 0 },
    );
  return { primary: branch("primary"), replica: branch("replica"), drop };
}

/** A side that failed leaves the lockstep of the body (see bothBranches), so the other side reads on. */
async function releaseOnFailure<T>(write: Promise<T>, branches: Branches, side: ReplicaSide): Promise<T> {
  try {
    return await write;
  } catch (error) {
    branches.drop(side, error);
    throw error;
  }
}

/** When both sides fail, the error that says most: the primary's, unless it is only an outage and the replica's is not. */
function preferredError(primary: Error, replica: Error): Error {
  return primary instanceof StorageUnavailableError && !(replica instanceof StorageUnavailableError) ? replica : primary;
}
