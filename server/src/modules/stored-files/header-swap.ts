// Key rotation on the server side (issue 27 §5): an agent reads a backup file's header and sends
// back a rewrapped one; the server writes the new header followed by the stored file's data, as
// one atomic put, so any reader sees either the old file or the new one. The data (every chunk
// after the header) is copied unchanged, never re-encrypted; the server never holds a key. Each
// replaced header stays beside the file (replaced-headers/), so a rewrap can be undone.
import { createHash } from "node:crypto";
import type { backups } from "@db/schema";
import type { AppContext } from "../../context";
import { conflict } from "../../lib/errors";
import { ObjectNotFoundError } from "../../storage";
import { checkReplacementHeader, HEADER_PREFIX_LENGTH, readStoredHeaderLength } from "./header-layout";
import { backupStorage } from "./keys";

type BackupRow = typeof backups.$inferSelect;

/** The stored file's header bytes (as long as its format says). Throws 409 when the backup is not completed or its file is gone. */
export async function readStoredHeader(ctx: AppContext, backup: BackupRow): Promise<Buffer> {
  if (backup.status !== "completed") throw conflict(`This backup is ${backup.status}; only a completed backup has a stored file.`);
  const fileKey = backupStorage.file(backup.organizationId, backup.id);
  try {
    const prefix = await readAll(await ctx.storage.get(fileKey, { start: 0, end: HEADER_PREFIX_LENGTH - 1 }));
    const { length } = readStoredHeaderLength(prefix);
    return await readAll(await ctx.storage.get(fileKey, { start: 0, end: length - 1 }));
  } catch (error) {
    if (error instanceof ObjectNotFoundError) throw conflict("This backup's file is missing from storage.");
    throw error;
  }
}

/**
 * Writes `replacement` (checked against the stored header's layout) in place of the stored file's
 * header, the data after it copied unchanged, as one put; the header it replaces is kept beside the
 * file first. Answers the key id the new header names and the file's checksum. A replacement equal
 * to the stored header writes nothing (the catalogue then only records them: backups/records.ts).
 */
export async function writeReplacementHeader(
  ctx: AppContext,
  backup: BackupRow,
  replacement: Uint8Array,
  retainUntil: () => Promise<Date | undefined>,
): Promise<{ keyId: string; sha256: string }> {
  const stored = await readStoredHeader(ctx, backup);
  const { keyId } = checkReplacementHeader(stored, replacement);
  if (stored.equals(Buffer.from(replacement)) && backup.sha256) return { keyId, sha256: backup.sha256 };
  const fileKey = backupStorage.file(backup.organizationId, backup.id);
  // The header it replaces is kept first: a rewrap sent with stolen agent credentials can wrap
  // the data key to nobody, and this copy (the data after it is unchanged) undoes that.
  const lock = await retainUntil();
  if (backup.sha256) await ctx.storage.put(backupStorage.replacedHeader(backup.organizationId, backup.id, backup.sha256), stored, { retainUntil: lock });
  const hash = createHash("sha256");
  const data = await ctx.storage.get(fileKey, { start: stored.length, end: backup.size - 1 });
  const body = concatenate(replacement, data, (chunk) => hash.update(chunk));
  const { size } = await ctx.storage.put(fileKey, body, { retainUntil: lock });
  if (size !== backup.size) ctx.log.error("a rewrapped backup file changed size", { backupId: backup.id, before: backup.size, after: size });
  return { keyId, sha256: hash.digest("hex") };
}

/** The manifest beside the file repeats its checksum (the catalogue can be rebuilt from storage); a failure is logged, not thrown. */
export async function recordManifestChecksum(ctx: AppContext, backup: BackupRow, sha256: string, retainUntil: () => Promise<Date | undefined>) {
  const key = backupStorage.manifest(backup.organizationId, backup.id);
  try {
    const manifest = JSON.parse((await readAll(await ctx.storage.get(key))).toString("utf8")) as Record<string, unknown>;
    if (manifest.sha256 === sha256) return;
    const text = JSON.stringify({ ...manifest, sha256 }, null, 2);
    await ctx.storage.put(key, new TextEncoder().encode(text), { retainUntil: await retainUntil() });
  } catch (error) {
    ctx.log.warn("could not record a rewrapped backup's checksum in its manifest", { backupId: backup.id, error });
  }
}

function concatenate(head: Uint8Array, rest: ReadableStream<Uint8Array>, observe: (chunk: Uint8Array) => void): ReadableStream<Uint8Array> {
  const reader = rest.getReader();
  let headSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headSent) {
        headSent = true;
        observe(head);
        controller.enqueue(head);
        return;
      }
      const { done, value } = await reader.read();
      if (done) return controller.close();
      observe(value);
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const chunk of stream) parts.push(chunk);
  return Buffer.concat(parts);
}
