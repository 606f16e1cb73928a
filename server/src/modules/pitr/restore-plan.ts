// Choosing what a point-in-time restore replays: the newest base backup consistent at or before
// the moment, and the slices of one chain that run from it to the moment with no hole. Pure: the
// bases and slices in, the plan (or the windows that can be restored, to name them) out.

/** A completed backup consistent at one oplog position. */
export type PlanBase = { id: string; consistentAt: bigint };
/** What the plan reads of a stored slice; it covers (startTs, endTs]. */
export type PlanSlice = { id: string; chain: string; sequence: number; startTs: bigint; endTs: bigint };

export type RestorePlan<B extends PlanBase, S extends PlanSlice> = { base: B; slices: S[] };

/** The slices of `chain` (sorted by sequence) that run from `from` to `until` with no hole, or undefined. */
function chainRun<S extends PlanSlice>(chain: S[], from: bigint, until: bigint): S[] | undefined {
  if (from === until) return [];
  const first = chain.findIndex((slice) => slice.startTs <= from && from < slice.endTs);
  if (first === -1) return undefined;
  const run = [chain[first]!];
  while (run.at(-1)!.endTs < until) {
    const previous = run.at(-1)!;
    const next = chain[first + run.length];
    if (!next || next.sequence !== previous.sequence + 1 || next.startTs !== previous.endTs) return undefined;
    run.push(next);
  }
  return run;
}

/** Slices by chain, each chain in sequence order. */
function byChain<S extends PlanSlice>(slices: S[]): S[][] {
  const chains = new Map<string, S[]>();
  for (const slice of slices) chains.set(slice.chain, [...(chains.get(slice.chain) ?? []), slice]);
  return [...chains.values()].map((chain) => chain.sort((a, b) => a.sequence - b.sequence));
}

/** The newest base at or before `until` from which one chain reaches `until` unbroken; undefined when none does. */
export function planPointInTime<B extends PlanBase, S extends PlanSlice>(bases: B[], slices: S[], until: bigint): RestorePlan<B, S> | undefined {
  const chains = byChain(slices);
  const candidates = bases
    .filter((base) => base.consistentAt <= until)
    .sort((a, b) => (a.consistentAt > b.consistentAt ? -1 : a.consistentAt < b.consistentAt ? 1 : 0));
  for (const base of candidates) {
    for (const chain of chains) {
      const run = chainRun(chain, base.consistentAt, until);
      if (run) return { base, slices: run };
    }
  }
  return undefined;
}

/**
 * The moments a point-in-time restore can reach, oldest first: in each unbroken run of a chain,
 * from the oldest base consistent inside it to the run's end. Named when a moment is refused.
 */
export function restorableWindows(bases: PlanBase[], slices: PlanSlice[]): { from: bigint; to: bigint }[] {
  const windows: { from: bigint; to: bigint }[] = [];
  for (const chain of byChain(slices)) {
    let runStart = 0;
    for (let index = 0; index < chain.length; index++) {
      const next = chain[index + 1];
      const continues = next && next.sequence === chain[index]!.sequence + 1 && next.startTs === chain[index]!.endTs;
      if (continues) continue;
      const from = chain[runStart]!.startTs;
      const to = chain[index]!.endTs;
      const oldest = bases
        .map((base) => base.consistentAt)
        .filter((at) => from <= at && at < to)
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[0];
      if (oldest !== undefined) windows.push({ from: oldest, to });
      runStart = index + 1;
    }
  }
  return windows.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
}
