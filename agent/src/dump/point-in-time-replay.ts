// The chain side of a point-in-time restore, as the restore asks for it (types.ts
// PointInTimeReplay): before the database is touched every slice is streamed, opened and checked
// on its own (and the server's list for order), keeping only its metadata; once the base's
// consistent point is read from its archive, the chain is checked against it and `until`, and its
// entries after that point are streamed from the checked files again, authenticated again. A
// broken chain, or a slice changed since its check, is a DumpError "invalid-chain" naming the
// slice, raised before anything is swapped in.
import { rm } from "node:fs/promises";
import type { OplogTime } from "../../../protocol/oplog-position.ts";
import { ChainError } from "../oplog/chain/chain-error.ts";
import type { SliceFile, SliceKeys } from "../oplog/chain/open-slice.ts";
import { type OpenedChain, openChain, type VerifiedChain, verifyOpenedChain } from "../oplog/chain/verify-chain.ts";
import { DumpError } from "./errors.ts";
import { createPrivateDirectory } from "./private-copy.ts";
import type { PointInTimeReplay } from "./types.ts";

export interface PointInTimeReplayRequest {
  files: SliceFile[];
  keys: SliceKeys;
  until: OplogTime;
  /**
   * Copies each slice, as it is checked, into a private directory (0700, files 0600) and replays
   * from the copies: for files others can change (a user's directory). Slices already in a
   * private directory need none; they are authenticated again as they are replayed either way.
   */
  privateCopies?: { tempDir?: string };
  /** Hears the chain once it is checked. */
  onVerified?: (chain: VerifiedChain) => void;
}

/** The replay, and `remove`, which deletes the private copies (never throws); call it once the restore ended. */
export function pointInTimeReplay(request: PointInTimeReplayRequest): PointInTimeReplay & { remove(): Promise<void> } {
  // Opened once, by `check` before the database is touched, or else by `entriesAfter`.
  const opened = new Map<string, Promise<OpenedChain>>();
  const directories: string[] = [];
  const open = (database: string) => {
    let chain = opened.get(database);
    if (!chain) opened.set(database, (chain = openInto(database)));
    return chain;
  };
  const openInto = async (database: string) => {
    if (!request.privateCopies) return openChain(request.files, request.keys, database);
    const directory = await createPrivateDirectory(request.privateCopies.tempDir);
    directories.push(directory);
    return openChain(request.files, request.keys, database, directory);
  };
  return {
    until: request.until,
    check: (database) => asDumpError(async () => void (await open(database))),
    entriesAfter: (base, database) =>
      asDumpError(async () => {
        const chain = verifyOpenedChain(await open(database), base, request.until);
        request.onVerified?.(chain);
        return rethrownAsDumpError(chain.entries);
      }),
    remove: async () => {
      await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true }).catch(() => undefined)));
    },
  };
}

async function asDumpError<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (cause) {
    throw toDumpError(cause);
  }
}

function rethrownAsDumpError(entries: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  return {
    async *[Symbol.asyncIterator]() {
      try {
        yield* entries;
      } catch (cause) {
        throw toDumpError(cause);
      }
    },
  };
}

function toDumpError(cause: unknown): unknown {
  if (!(cause instanceof ChainError)) return cause;
  return new DumpError("invalid-chain", `${cause.message}, so nothing was replaced`, {
    cause,
    hint: cause.hint ?? "the target database is unchanged; restore from the slices as the agent shipped them",
  });
}
