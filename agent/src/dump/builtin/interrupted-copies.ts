// Finishing the copies an interrupted restore left half done (copy-journal.ts). A restore that
// copies instead of renaming records each copy before it drops the target; when the agent or the
// server died in the middle, the record and the staging collection with the backup's complete
// copy are still there. The next restore (before it touches anything else) and `dbvault-agent run`
// at start find the record, say which collection was left partial, and finish the copy, which
// leaves that collection wholly the backup's, as the interrupted restore would have.
import type { MongoClient } from "mongodb";
import { readUriDatabase, withPrimaryReadPreference } from "../connection-string.ts";
import { DumpError } from "../errors.ts";
import { connectClient, describeDriverError, listDatabaseNames } from "./client.ts";
import { clearCopy, type CopyRecord, readCopyRecords } from "./copy-journal.ts";
import { chooseEmptyTimestampPolicy, type EmptyTimestampPolicy } from "./restored-documents.ts";
import { copyOver, describePartial } from "./swap.ts";

/** A copy found interrupted: finished now, or lost (its staging collection was gone). */
export interface InterruptedCopy {
  target: string;
  outcome: "finished" | "lost";
}

/**
 * Finishes every copy an interrupted restore left in `databases` (by default the URI's database,
 * or every database when it names none), telling `onNotice` about each. Throws DumpError
 * "connect-failed", or "restore-incomplete" naming the collections still partial when finishing
 * failed (their staging collections are kept).
 */
export async function finishInterruptedCopies(
  uri: string,
  databases: string[] | undefined,
  onNotice: ((message: string) => void) | undefined,
): Promise<InterruptedCopy[]> {
  const client = await connectClient(withPrimaryReadPreference(uri));
  const done: InterruptedCopy[] = [];
  let pending: CopyRecord[] = [];
  try {
    const named = readUriDatabase(uri);
    pending = await readCopyRecords(client, databases ?? (named ? [named] : await listDatabaseNames(client)));
    if (pending.length === 0) return done;
    const emptyTimestamps = await chooseEmptyTimestampPolicy(client);
    while (pending.length > 0) {
      const record = pending[0]!;
      done.push(await finishCopy(client, record, emptyTimestamps, onNotice));
      pending.shift();
    }
    return done;
  } catch (cause) {
    if (pending.length === 0) throw cause;
    const finished = done.length > 0 ? `finished ${done.map((entry) => entry.target).join(", ")}, then ` : "";
    throw new DumpError(
      "restore-incomplete",
      `an interrupted restore left ${pending.map((record) => describePartial({ target: record.target, kept: `${record.staged.db}.${record.staged.name}` })).join("; ")}; ` +
        `${finished}finishing that copy failed: ${describeDriverError(cause, uri)}`,
      {
        cause,
        stats: { engine: "builtin", collections: {}, restored: 0, failed: 0, skipped: [] },
        hint: "restore again once MongoDB answers: the copy is finished first; nothing else was changed",
      },
    );
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function finishCopy(
  client: MongoClient,
  record: CopyRecord,
  emptyTimestamps: EmptyTimestampPolicy,
  onNotice: ((message: string) => void) | undefined,
): Promise<InterruptedCopy> {
  const kept = `${record.staged.db}.${record.staged.name}`;
  const staged = await client.db(record.staged.db).listCollections({ name: record.staged.name }, { nameOnly: true }).toArray();
  if (staged.length === 0) {
    // Removed by hand: nothing can finish the copy, and the record would only repeat this.
    await clearCopy(client, record);
    onNotice?.(
      `${record.target} may be partial: a restore was interrupted while copying it, and the backup's copy of it (${kept}) is gone; restore that collection again`,
    );
    return { target: record.target, outcome: "lost" };
  }
  onNotice?.(`${record.target} may be partial: a restore was interrupted while copying it; finishing the copy from ${kept}`);
  await copyOver(client, record, emptyTimestamps);
  onNotice?.(`${record.target} now holds all of that backup's documents`);
  return { target: record.target, outcome: "finished" };
}
