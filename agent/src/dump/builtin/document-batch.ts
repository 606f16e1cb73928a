// Documents gathered for one insert as they are read (from the archive, or from a staging
// collection in the copy path), up to what keeps the agent's memory flat: mongorestore's batch of
// 1,000 documents, or 8 MiB, whichever comes first. A batch of big documents can still pass the
// server's message limit (1,000 × 60 KB, or one 8 MiB document beside a 16 MiB one); the insert
// cuts it to the server's limits (write-limits.ts).
const BATCH_DOCUMENTS = 1000;
const BATCH_BYTES = 8 * 1024 * 1024;

/** Documents for one collection's next insert; `owner` says whose they are when batches change hands. */
export class DocumentBatch<Owner = undefined> {
  owner: Owner | undefined;
  documents: Uint8Array[] = [];
  private bytes = 0;

  add(document: Uint8Array, owner?: Owner): void {
    this.owner = owner;
    this.documents.push(document);
    this.bytes += document.length;
  }

  isFull(): boolean {
    return this.documents.length >= BATCH_DOCUMENTS || this.bytes >= BATCH_BYTES;
  }

  /** The documents gathered, leaving the batch empty. */
  take(): Uint8Array[] {
    const documents = this.documents;
    this.documents = [];
    this.bytes = 0;
    return documents;
  }
}
