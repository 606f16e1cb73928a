// The built-in restorer's inserts, run while the archive is read on (restore.ts).

// Insert commands running at once (each into its own collection, or queued behind the one
// before it into the same collection): the server inserts one batch while the agent reads,
// decompresses and checks the next. Bounds memory at this many batches.
const INSERTS_IN_FLIGHT = 3;

/**
 * Runs insert commands while the archive is read on: at most INSERTS_IN_FLIGHT at once, one
 * collection's in the order they were started. The first failure is thrown by the next
 * `start` or by `finish`.
 */
export class InsertPipeline {
  private readonly running = new Set<Promise<void>>();
  private readonly last = new Map<object, Promise<void>>();
  private failure: { error: unknown } | undefined;

  /** Starts `insert` after the previous insert of `key`; resolves once there is room for another. */
  async start(key: object, insert: () => Promise<void>): Promise<void> {
    this.throwIfFailed();
    const previous = this.last.get(key);
    const run = (async () => {
      if (previous) await previous;
      this.throwIfFailed();
      await insert();
    })();
    const tracked = run.catch((error) => {
      this.failure ??= { error };
    });
    this.last.set(key, tracked);
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
    while (this.running.size >= INSERTS_IN_FLIGHT) await Promise.race(this.running);
    this.throwIfFailed();
  }

  /** Waits for every insert; throws the first failure. */
  async finish(): Promise<void> {
    await this.settle();
    this.throwIfFailed();
  }

  /** Waits for every insert to end, failed or not; never throws. */
  async settle(): Promise<void> {
    await Promise.all(this.running);
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}
