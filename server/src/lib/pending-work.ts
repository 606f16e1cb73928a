/**
 * Work started by socket events that nobody awaits (recording an agent's disconnection when its
 * socket closes), so that shutting down can let it finish before the database closes: a query
 * issued while the pool ends fails, or (porsager) opens a connection that is never closed.
 */
export type PendingWork = {
  /** Keeps `work` until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T>;
  /** Resolves once everything tracked (including work tracked meanwhile) has settled. */
  settled(): Promise<void>;
};

export function createPendingWork(): PendingWork {
  const running = new Set<Promise<unknown>>();
  return {
    track(work) {
      running.add(work);
      work.then(
        () => running.delete(work),
        () => running.delete(work),
      );
      return work;
    },
    async settled() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
