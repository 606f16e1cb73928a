import type { backups } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, conflict } from "../../lib/errors";
import { ObjectNotFoundError } from "../../storage";
import { backupFileName, backupStorage } from "./keys";

type BackupRow = typeof backups.$inferSelect;

/** Parses a single `bytes=a-b`, `bytes=a-` or `bytes=-n` range; null when there is none. Throws 416 when unsatisfiable. */
export function parseRange(header: string | null, size: number): { start: number; end: number } | null {
  if (!header) return null;
  const match = header.match(/^bytes=(\d*)-(\d*)$/);
  if (!match || (match[1] === "" && match[2] === "")) return null;
  let start: number;
  let end: number;
  if (match[1] === "") {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start > end || start >= size) {
    throw new AppError(416, "BAD_REQUEST", "The requested range is outside the file.", { size });
  }
  return { start, end };
}

/**
 * The HTTP answer for downloading a completed backup: the ciphertext with Content-Length, the
 * spec's file name, and single byte ranges (206) so interrupted downloads can resume.
 */
export async function downloadBackupResponse(ctx: AppContext, backup: BackupRow, rangeHeader: string | null): Promise<Response> {
  if (backup.status !== "completed") throw conflict(`This backup is ${backup.status}; only completed backups can be downloaded.`);
  return storedFileResponse(ctx, {
    key: backupStorage.file(backup.organizationId, backup.id),
    size: backup.size,
    fileName: backupFileName(backup),
    sha256: backup.sha256,
    rangeHeader,
    onMissing: () => {
      // Storage lost the file: a fact about this backup (verification reports it), not a server fault.
      ctx.log.error("a completed backup's file is missing from storage", { backupId: backup.id });
      return new AppError(410, "NOT_FOUND", "This backup's file is missing from storage: it cannot be downloaded or restored. Back the database up again.");
    },
  });
}

/**
 * A stored sealed file as an HTTP answer, with single byte ranges (206). Local files go out as a
 * Blob (Bun sends them with sendfile); S3 objects by a short-lived redirect.
 */
export async function storedFileResponse(
  ctx: AppContext,
  file: { key: string; size: number; fileName: string; sha256: string | null; rangeHeader: string | null; onMissing: () => AppError },
): Promise<Response> {
  const range = parseRange(file.rangeHeader, file.size);
  const source = await ctx.storage.httpSource(file.key, range ?? undefined, { size: file.size, sha256: file.sha256 }).catch((error) => {
    if (!(error instanceof ObjectNotFoundError)) throw error;
    throw file.onMissing();
  });
  if (source.kind === "redirect") {
    // Someone deleted or overwrote it through S3 itself: the locked version is served, and the
    // operator is told which one to bring back (docs/restore.md).
    if (source.hiddenVersion) ctx.log.warn("a stored file was hidden in S3; serving its locked version", { key: file.key, versionId: source.hiddenVersion });
    return new Response(null, { status: 302, headers: { location: source.url, "cache-control": "no-store" } });
  }
  const headers: Record<string, string> = {
    "content-type": "application/octet-stream",
    "content-length": String(source.size),
    "content-disposition": `attachment; filename="${file.fileName}"`,
    "accept-ranges": "bytes",
    "cache-control": "no-store",
    ...(file.sha256 ? { "x-content-sha256": file.sha256 } : {}),
  };
  if (range) headers["content-range"] = `bytes ${range.start}-${range.end}/${file.size}`;
  return new Response(source.blob, { status: range ? 206 : 200, headers });
}
