// Inserts, updates and deletes go to the server through its applyOps command, many at once, with
// their namespace rewritten to where they are applied and without `ui` (the collection's UUID
// on the source, which the applied copy does not share): as mongorestore --oplogReplay sends
// them. applyOps applies them as a secondary would: an insert of an existing _id replaces it,
// an update of a missing document upserts, a delete of a missing one does nothing, so entries
// the dump already saw apply again without harm.
import type { Document, MongoClient } from "mongodb";
import { OplogApplyError } from "./errors.ts";
import { formatOplogTime, type OplogTime } from "../../../../protocol/oplog-position.ts";

// Well below the 16 MiB a command may hold: one more operation never passes it.
const MAX_BATCH_BYTES = 8 * 1024 * 1024;
const MAX_BATCH_OPERATIONS = 1000;

export class OperationBatch {
  private operations: Document[] = [];
  private bytes = 0;
  private first: OplogTime | undefined;
  private last: OplogTime | undefined;
  /** Operations the server applied so far. */
  applied = 0;

  constructor(private readonly client: MongoClient) {}

  /** Queues one operation of the entry at `at`; sends the batch when it is full. */
  async add(operation: Document, size: number, at: OplogTime | undefined): Promise<void> {
    if (this.operations.length > 0 && (this.bytes + size > MAX_BATCH_BYTES || this.operations.length >= MAX_BATCH_OPERATIONS)) await this.flush();
    this.operations.push(operation);
    this.bytes += size;
    this.first ??= at;
    this.last = at ?? this.last;
  }

  /** Sends what is queued; throws OplogApplyError naming the entries when the server refuses them. */
  async flush(): Promise<void> {
    if (this.operations.length === 0) return;
    const operations = this.operations;
    const [first, last] = [this.first, this.last];
    this.operations = [];
    this.bytes = 0;
    this.first = this.last = undefined;
    try {
      await this.client.db("admin").command({ applyOps: operations });
    } catch (cause) {
      const range = first && last ? ` (entries ${formatOplogTime(first)} to ${formatOplogTime(last)})` : "";
      throw new OplogApplyError(`the server refused ${operations.length} operation(s)${range}: ${(cause as Error).message}`, first, cause);
    }
    this.applied += operations.length;
  }
}
