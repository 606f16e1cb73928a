// The chain side of a point-in-time restore, as the restore asks for it (dump/types.ts
// PointInTimeReplay): once the base's consistent point is read from its archive, the slices are
// checked whole and their entries after that point handed over; a broken chain is a DumpError
// "invalid-chain" naming the slice, raised before anything is swapped in.
import { DumpError } from "../../dump/errors.ts";
import type { PointInTimeReplay } from "../../dump/types.ts";
import type { OplogTime } from "../../../../protocol/pitr.ts";
import { ChainError } from "./chain-error.ts";
import type { SliceFile, SliceKeys } from "./open-slice.ts";
import { type VerifiedChain, verifyChain } from "./verify-chain.ts";

export function pointInTimeReplay(request: {
  files: SliceFile[];
  keys: SliceKeys;
  until: OplogTime;
  /** Hears the chain once it is checked. */
  onVerified?: (chain: VerifiedChain) => void;
}): PointInTimeReplay {
  return {
    until: request.until,
    async entriesAfter(base, database) {
      try {
        const chain = await verifyChain({ files: request.files, keys: request.keys, database, base, until: request.until });
        request.onVerified?.(chain);
        return chain.entries;
      } catch (cause) {
        if (!(cause instanceof ChainError)) throw cause;
        throw new DumpError("invalid-chain", `${cause.message}, so nothing was replaced`, {
          cause,
          hint: cause.hint ?? "the target database is unchanged; restore from the slices as the agent shipped them",
        });
      }
    },
  };
}
