// The encrypted backup kept on local disk while it uploads, so that once DBVault holds it the same
// bytes can go to the customer's buckets without dumping the database twice. Ciphertext only.
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface CopySpool {
  path: string;
  /** Passes the chunks on, each written to the spool file first. */
  tee(source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array>;
  /** Deletes the spool file; safe to call twice; never throws. */
  discard(): Promise<void>;
}

/** Creates an empty spool file in a new 0700 temporary directory; throws on a file system error. */
export async function openCopySpool(): Promise<CopySpool> {
  const directory = await mkdtemp(join(tmpdir(), "dbvault-copy-"));
  const path = join(directory, "backup.enc.dbvault");
  return {
    path,
    async *tee(source) {
      const file = await open(path, "wx", 0o600);
      try {
        for await (const chunk of source) {
          await file.write(chunk);
          yield chunk;
        }
      } finally {
        await file.close();
      }
    },
    discard: () => rm(directory, { recursive: true, force: true }).catch(() => undefined),
  };
}
