// Checks a chain of slices whole before a point-in-time restore changes anything: every slice
// opens with the key and names the database; they are one chain, sequences following with none
// missing, each starting where the previous ended; the first covers the base backup's consistent
// point and the last reaches `until`. Answers the entries to replay after the base, in order, as
// a stream read from the checked files again (only each slice's metadata is held in memory).
import { join } from "node:path";
import { compareOplogTimes, formatOplogTime, type OplogTime } from "../../../../protocol/oplog-position.ts";
import { ChainError } from "./chain-error.ts";
import { type OpenedSlice, openSlice, readSliceEntries, type SliceFile, type SliceKeys } from "./open-slice.ts";

export interface VerifyChainRequest {
  /** In chain order when each has `expected` (the server's list); else in any order (a directory). */
  files: SliceFile[];
  keys: SliceKeys;
  database: string;
  /** The base backup's consistent point: the state the entries are applied to. */
  base: OplogTime;
  until: OplogTime;
}

export interface VerifiedChain {
  chain: string;
  /** The slices used, in order. */
  slices: { name: string; sequence: number; start: OplogTime; end: OplogTime }[];
  /**
   * The entries after the base's point, in oplog order (those past `until` included: the replay
   * stops there), read and authenticated again from the checked files at each iteration.
   */
  entries: AsyncIterable<Uint8Array>;
}

/** Throws ChainError naming the slice (or the interval) at fault. */
export async function verifyChain(request: VerifyChainRequest): Promise<VerifiedChain> {
  return verifyOpenedChain(await openChain(request.files, request.keys, request.database), request.base, request.until);
}

/**
 * What can be checked before the base backup's point is known: every slice opens and names the
 * database and, for the server's list (each file with `expected`), the slices follow one another.
 * Throws ChainError naming the slice.
 */
export async function openChain(files: SliceFile[], keys: SliceKeys, database: string, copyInto?: string): Promise<OpenedChain> {
  const opened: OpenedSlice[] = [];
  for (const [index, file] of files.entries()) {
    opened.push(await openSlice(file, keys, database, copyInto === undefined ? undefined : join(copyInto, `${index}.enc.dbvault`)));
  }
  const listed = files.every((file) => file.expected);
  if (listed) checkContiguous(opened);
  return { slices: opened, listed, keys };
}

export interface OpenedChain {
  slices: OpenedSlice[];
  keys: SliceKeys;
  /** In chain order as the server listed them (else a directory's, in any order). */
  listed: boolean;
}

/** The rest of verifyChain once the base's point is known. */
export function verifyOpenedChain(chain: OpenedChain, base: OplogTime, until: OplogTime): VerifiedChain {
  if (compareOplogTimes(until, base) < 0) {
    throw new ChainError(`${formatOplogTime(until)} is before the base backup's consistent point ${formatOplogTime(base)}`, {
      hint: "choose a later time, or a base backup taken before it",
    });
  }
  const ordered = chain.listed ? chain.slices : pickChain(chain.slices, base, until);
  if (ordered.length === 0) {
    if (compareOplogTimes(until, base) === 0) return { chain: "", slices: [], entries: entriesOf([], chain.keys, base) };
    throw new ChainError(`no slice covers the time from the base backup's point ${formatOplogTime(base)} to ${formatOplogTime(until)}`, {
      hint: "put the slices shipped after the base backup in the directory",
    });
  }
  checkContiguous(ordered);
  const first = ordered[0]!;
  const last = ordered.at(-1)!;
  if (compareOplogTimes(first.start, base) > 0) {
    throw new ChainError(
      `slice ${first.name} starts at ${formatOplogTime(first.start)}, after the base backup's consistent point ${formatOplogTime(base)}: the entries in between are missing`,
      { hint: "the slice before it is missing, or the chain began after this backup; use a later base backup" },
    );
  }
  if (compareOplogTimes(last.end, until) < 0) {
    throw new ChainError(`the slices end at ${formatOplogTime(last.end)} (slice ${last.name}), before ${formatOplogTime(until)}`, {
      hint: "choose a time the slices cover, or add the slices after it",
    });
  }
  return {
    chain: first.chain,
    slices: ordered.map(({ name, sequence, start, end }) => ({ name, sequence, start, end })),
    entries: entriesOf(ordered, chain.keys, base),
  };
}

/** The slices' entries after `base`, each iteration reading the files again. */
function entriesOf(slices: OpenedSlice[], keys: SliceKeys, base: OplogTime): AsyncIterable<Uint8Array> {
  return {
    async *[Symbol.asyncIterator]() {
      for (const slice of slices) yield* readSliceEntries(slice, keys, base);
    },
  };
}

/**
 * Of a directory's slices: the chain holding the base's point, from the slice covering it to the
 * one reaching `until` (slices entirely before or after are not needed). Sorted by sequence.
 */
function pickChain(slices: OpenedSlice[], base: OplogTime, until: OplogTime): OpenedSlice[] {
  const holding = slices.find((slice) => compareOplogTimes(slice.start, base) <= 0 && compareOplogTimes(base, slice.end) < 0);
  const chain = holding?.chain ?? earliestChainAfter(slices, base);
  if (chain === undefined) return [];
  const seen = new Map<number, OpenedSlice>();
  for (const slice of slices.filter((candidate) => candidate.chain === chain)) {
    const twin = seen.get(slice.sequence);
    if (twin) throw new ChainError(`slices ${twin.name} and ${slice.name} are both slice ${slice.sequence} of chain ${chain}`);
    seen.set(slice.sequence, slice);
  }
  const after = [...seen.values()].sort((a, b) => a.sequence - b.sequence).filter((slice) => compareOplogTimes(slice.end, base) > 0);
  // Up to the first slice reaching `until`: the later ones are not needed (a hole before it is found by checkContiguous).
  const reaching = after.findIndex((slice) => compareOplogTimes(slice.end, until) >= 0);
  return reaching < 0 ? after : after.slice(0, reaching + 1);
}

// No slice holds the base's point: the chain starting soonest after it, so the error names its first slice.
function earliestChainAfter(slices: OpenedSlice[], base: OplogTime): string | undefined {
  const after = slices.filter((slice) => compareOplogTimes(slice.end, base) > 0).sort((a, b) => compareOplogTimes(a.start, b.start));
  return after[0]?.chain;
}

function checkContiguous(slices: OpenedSlice[]): void {
  for (let index = 1; index < slices.length; index++) {
    const before = slices[index - 1]!;
    const slice = slices[index]!;
    if (slice.chain !== before.chain) throw new ChainError(`slice ${slice.name} is of chain ${slice.chain}, not ${before.chain} as slice ${before.name}`);
    if (slice.sequence !== before.sequence + 1) {
      const listed = slices.some((other) => other.chain === before.chain && other.sequence === before.sequence + 1);
      const missing = listed || slice.sequence <= before.sequence ? "they are out of order" : `slice ${before.sequence + 1} of chain ${slice.chain} is missing`;
      throw new ChainError(`slice ${slice.name} (sequence ${slice.sequence}) does not follow slice ${before.name} (sequence ${before.sequence}): ${missing}`);
    }
    if (compareOplogTimes(slice.start, before.end) !== 0) {
      throw new ChainError(
        `slice ${slice.name} starts at ${formatOplogTime(slice.start)}, not where slice ${before.name} ended (${formatOplogTime(before.end)})`,
      );
    }
  }
}
