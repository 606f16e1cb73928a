// The slices of a point-in-time restore the server asked for: each downloaded with the agent's
// credentials (resuming after drops, as a backup is) into a private temporary directory, then
// read back for the chain check (oplog/chain), which trusts only what the files hold.
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { PointInTimeCommand } from "../../../../protocol/agent-protocol";
import type { SliceFile } from "../../oplog/chain/index.ts";
import type { ServerClient } from "../../transport/server-client";
import { openResumableSliceDownload } from "../resumable-download.ts";

export interface DownloadedSlices {
  files: SliceFile[];
  /** Removes the directory; never throws. */
  remove(): Promise<void>;
}

/** Downloads every slice before any is checked; removes what it wrote when one fails. */
export async function downloadSlices(client: ServerClient, command: PointInTimeCommand, signal: AbortSignal): Promise<DownloadedSlices> {
  // mkdtemp makes the directory 0700: the slices are sealed, but no other user needs to see them.
  const directory = await mkdtemp(join(tmpdir(), "dbvault-slices-"));
  const remove = () => rm(directory, { recursive: true, force: true }).catch(() => undefined);
  try {
    const files: SliceFile[] = [];
    for (const slice of command.slices) {
      const path = join(directory, `${slice.sequence}.enc.dbvault`);
      // Streamed to the file: a chain is never held in memory (the check streams it too).
      await pipeline(
        Readable.fromWeb(openResumableSliceDownload(client, slice.id, { signal }) as unknown as NodeReadableStream<Uint8Array>),
        createWriteStream(path, { mode: 0o600, flags: "wx" }),
      );
      files.push({
        name: slice.id,
        path,
        expected: { chain: slice.chain, sequence: slice.sequence, size: slice.size, sha256: slice.sha256 },
      });
    }
    return { files, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
