// Key rotation on the server side (issue 27 §5): an agent reads a backup file's header and sends
// back a rewrapped one; the server writes the new header followed by the stored file's data, as
// one atomic put, so any reader sees either the old file or the new one. The data (every chunk
// after the header) is copied unchanged, never re-encrypted; the server never holds a key. Each
// replaced header stays beside the file (replaced-headers/), so a rewrap can be undone.
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { backups } from "@db/schema";
import type { AppContext } from "../../context";
import { conflict } from "../../lib/errors";
import { ObjectNotFoundError } from "../../storage";
import { lockForNewBackup } from "../retention-rules/lock-until";
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
 * Replaces the stored file's header with `replacement` (checked against the stored one's layout),
 * records the key id it names and the file's new checksum. Sending the header already stored only
 * records them (an agent finishing a rewrap that stopped in between).
 */
export async function replaceStoredHeader(
  ctx: AppContext,
  backup: BackupRow,
  replacement: Uint8Array,
): Promise<{ keyId: string; size: number; sha256: string }> {
  const stored = await readStoredHeader(ctx, backup);
  const { keyId } = checkReplacementHeader(stored, replacement);
  const fileKey = backupStorage.file(backup.organizationId, backup.id);
  let sha256 = backup.sha256;
  if (!stored.equals(Buffer.from(replacement)) || !sha256) {
    // The header it replaces is kept first: a rewrap sent with stolen agent credentials can wrap
    // the data key to nobody, and this copy (the data after it is unchanged) undoes that.
    const retainUntil = await lockForNewBackup(ctx, backup);
    if (backup.sha256) await ctx.storage.put(backupStorage.replacedHeader(backup.organizationId, backup.id, backup.sha256), stored, { retainUntil });
    const hash = createHash("sha256");
    const data = await ctx.storage.get(fileKey, { start: stored.length, end: backup.size - 1 });
    const body = concatenate(replacement, data, (chunk) => hash.update(chunk));
    const { size } = await ctx.storage.put(fileKey, body, { retainUntil });
    if (size !== backup.size) ctx.log.error("a rewrapped backup file changed size", { backupId: backup.id, before: backup.size, after: size });
    sha256 = hash.digest("hex");
  }
  const [updated] = await ctx.db
    .update(backups)
    .set({ keyId, sha256 })
    .where(and(eq(backups.id, backup.id), eq(backups.status, "completed")))
    .returning({ id: backups.id });
  // Deleted while its header was being replaced: the put just wrote the file back, so remove it again.
  if (!updated) {
    await ctx.storage.deletePrefix(backupStorage.prefix(backup.organizationId, backup.id)).catch(() => {});
    throw conflict("This backup was deleted while its header was being replaced.");
  }
  await recordManifestChecksum(ctx, backup, sha256);
  ctx.log.info("backup header rewrapped", { backupId: backup.id, keyId });
  return { keyId, size: backup.size, sha256 };
}

// The manifest beside the file repeats its checksum (the catalogue can be rebuilt from storage).
async function recordManifestChecksum(ctx: AppContext, backup: BackupRow, sha256: string) {
  const key = backupStorage.manifest(backup.organizationId, backup.id);
  try {
    const manifest = JSON.parse((await readAll(await ctx.storage.get(key))).toString("utf8")) as Record<string, unknown>;
    if (manifest.sha256 === sha256) return;
    const text = JSON.stringify({ ...manifest, sha256 }, null, 2);
    await ctx.storage.put(key, new TextEncoder().encode(text), { retainUntil: await lockForNewBackup(ctx, backup) });
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
