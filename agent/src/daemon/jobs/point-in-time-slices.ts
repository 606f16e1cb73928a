// The slices of a point-in-time restore the server asked for: its plan fetched page by page (the
// command names only the moment and the plan's size: a plan does not fit the server's bus), each
// slice downloaded with the agent's credentials (resuming after drops, as a backup is) into a
// private temporary directory, then read back for the chain check (oplog/chain), which trusts
// only what the files hold.
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { PointInTimeCommand, PointInTimePlanSlice } from "../../../../protocol/agent-protocol";
import { compareOplogTimes, formatOplogTime } from "../../../../protocol/oplog-position";
import type { SliceFile } from "../../oplog/chain/index.ts";
import type { ServerClient } from "../../transport/server-client";
import { openResumableSliceDownload } from "../resumable-download.ts";

export interface DownloadedSlices {
  files: SliceFile[];
  /** Removes the directory; never throws. */
  remove(): Promise<void>;
}

/** The plan the server recorded for a restore: its slices in chain order, and the collections chosen (null: all). */
export type PointInTimePlan = { slices: PointInTimePlanSlice[]; collections: string[] | null };

/**
 * Fetches the restore's plan, page by page; throws when it is not the plan the command announced
 * (another moment, another number of slices, slices out of order, collections named or not).
 */
export async function fetchPointInTimePlan(
  client: ServerClient,
  restoreId: string,
  command: PointInTimeCommand,
  signal: AbortSignal,
): Promise<PointInTimePlan> {
  const slices: PointInTimePlanSlice[] = [];
  let collections: string[] | null = null;
  let after: number | undefined;
  for (;;) {
    const page = await client.pointInTimePlan(restoreId, after, signal);
    if (compareOplogTimes(page.until, command.until) !== 0 || page.total !== command.plan.slices) {
      throw planMismatch(
        `the server's plan is to ${formatOplogTime(page.until)} over ${page.total} slice(s), not to ${formatOplogTime(command.until)} over ${command.plan.slices} as the restore command said`,
      );
    }
    for (const slice of page.slices) {
      const previous = slices.at(-1);
      if (previous && slice.sequence <= previous.sequence)
        throw planMismatch(`the server's plan lists slice ${slice.sequence} after slice ${previous.sequence}`);
      slices.push(slice);
    }
    collections = page.collections;
    if (page.next === null) break;
    if (page.slices.length === 0 || (after !== undefined && page.next <= after))
      throw planMismatch("the server's plan does not move on from one page to the next");
    after = page.next;
  }
  if (slices.length !== command.plan.slices)
    throw planMismatch(`the server's plan lists ${slices.length} slice(s), not the ${command.plan.slices} it announced`);
  if ((collections !== null) !== command.plan.collections)
    throw planMismatch("the server's plan and the restore command disagree on the collections to restore");
  return { slices, collections };
}

const planMismatch = (what: string) => new Error(`${what}, so nothing was changed: ask for the restore again`);

/** Downloads every slice before any is checked; removes what it wrote when one fails. */
export async function downloadSlices(client: ServerClient, plan: Pick<PointInTimePlan, "slices">, signal: AbortSignal): Promise<DownloadedSlices> {
  // mkdtemp makes the directory 0700: the slices are sealed, but no other user needs to see them.
  const directory = await mkdtemp(join(tmpdir(), "dbvault-slices-"));
  const remove = () => rm(directory, { recursive: true, force: true }).catch(() => undefined);
  try {
    const files: SliceFile[] = [];
    for (const slice of plan.slices) {
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
