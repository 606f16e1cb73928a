// restore's --oplog DIR --until TIME: the slices a point-in-time restore replays after the base
// backup, read from a directory (zero knowledge: the user recovers with files only), and the
// position to stop at, as an ISO time to the second (every entry of that second) or "t,i".
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { type OplogTime, parseMoment } from "../../../protocol/oplog-position.ts";
import { CliError, EXIT, usageError } from "../cli-error.ts";
import type { PointInTimeReplay } from "../dump/types.ts";
import type { MasterKeys } from "../archive/index.ts";
import { pointInTimeReplay } from "../dump/point-in-time-replay.ts";
import type { VerifiedChain } from "../oplog/chain/index.ts";

export interface PointInTimeOptions {
  replay: PointInTimeReplay;
  /** The chain once checked (set during the restore). */
  chain(): VerifiedChain | undefined;
  /** Deletes the slices' private copies; call it once the restore ended, whatever its outcome. */
  remove(): Promise<void>;
}

/** Reads --oplog and --until (both or neither); throws CliError. */
export async function readPointInTimeOptions(
  options: Record<string, unknown>,
  keys: { masterKey: MasterKeys; identities?: readonly Uint8Array[] },
): Promise<PointInTimeOptions | undefined> {
  const directory = typeof options.oplog === "string" ? options.oplog : undefined;
  const untilText = typeof options.until === "string" ? options.until : undefined;
  if (directory === undefined && untilText === undefined) return undefined;
  if (directory === undefined) throw usageError("restore: --until needs --oplog DIR, the directory of the oplog slices to replay");
  if (untilText === undefined) throw usageError("restore: --oplog needs --until, the time to restore to");
  const until = parseUntil(untilText);
  const names = await readdir(directory).catch((cause: NodeJS.ErrnoException) => {
    throw new CliError(
      `cannot read the oplog directory ${directory}: ${cause.code ?? cause.message}`,
      EXIT.failure,
      "pass the directory holding the slices' .enc.dbvault files",
    );
  });
  const sliceNames = names.filter((name) => name.endsWith(".enc.dbvault")).sort();
  if (sliceNames.length === 0) {
    throw new CliError(`no oplog slices (.enc.dbvault files) in ${directory}`, EXIT.failure, "download the slices of the database into that directory first");
  }
  const files = sliceNames.map((name) => ({ name, path: join(directory, name) }));
  let verified: VerifiedChain | undefined;
  // The directory is the user's: each slice is checked into a private copy, replayed from it.
  const replay = pointInTimeReplay({ files, keys, until, privateCopies: {}, onVerified: (chain) => (verified = chain) });
  return { replay, chain: () => verified, remove: replay.remove };
}

/** "t,i" or an ISO time to the second with its zone (protocol/oplog-position.ts parseMoment); throws a usage error. */
export function parseUntil(text: string): OplogTime {
  const position = parseMoment(text);
  if (position) return position;
  throw new CliError(
    `--until ${JSON.stringify(text)} is neither a time to the second nor an oplog position`,
    EXIT.usage,
    "e.g. --until 2026-11-27T14:37:05Z, or --until 1795760102,22 (seconds,increment)",
  );
}
