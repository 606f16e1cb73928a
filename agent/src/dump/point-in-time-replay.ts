// The chain side of a point-in-time restore, as the restore asks for it (types.ts
// PointInTimeReplay): before the database is touched every slice is opened and checked on its
// own (and the server's list for order); once the base's consistent point is read from its
// archive, the chain is checked against it and `until` and its entries after that point handed
// over. A broken chain is a DumpError "invalid-chain" naming the slice, raised before anything is
// swapped in.
import type { OplogTime } from "../../../protocol/pitr.ts";
import { ChainError } from "../oplog/chain/chain-error.ts";
import type { SliceFile, SliceKeys } from "../oplog/chain/open-slice.ts";
import { type OpenedChain, openChain, type VerifiedChain, verifyOpenedChain } from "../oplog/chain/verify-chain.ts";
import { DumpError } from "./errors.ts";
import type { PointInTimeReplay } from "./types.ts";

export function pointInTimeReplay(request: {
  files: SliceFile[];
  keys: SliceKeys;
  until: OplogTime;
  /** Hears the chain once it is checked. */
  onVerified?: (chain: VerifiedChain) => void;
}): PointInTimeReplay {
  // Opened once, by `check` before the database is touched, or else by `entriesAfter`.
  const opened = new Map<string, Promise<OpenedChain>>();
  const open = (database: string) => {
    let chain = opened.get(database);
    if (!chain) opened.set(database, (chain = openChain(request.files, request.keys, database)));
    return chain;
  };
  return {
    until: request.until,
    check: (database) => asDumpError(async () => void (await open(database))),
    entriesAfter: (base, database) =>
      asDumpError(async () => {
        const chain = verifyOpenedChain(await open(database), base, request.until);
        request.onVerified?.(chain);
        return chain.entries;
      }),
  };
}

async function asDumpError<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (cause) {
    if (!(cause instanceof ChainError)) throw cause;
    throw new DumpError("invalid-chain", `${cause.message}, so nothing was replaced`, {
      cause,
      hint: cause.hint ?? "the target database is unchanged; restore from the slices as the agent shipped them",
    });
  }
}
