import { createHash } from "node:crypto";
import { and, asc, eq, inArray, ne, sql } from "drizzle-orm";
import { backupParts, backups, plans, users } from "@db/schema";
import { type CompleteUploadRequest, UPLOAD_PART_SIZE } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { AppError, badRequest, conflict, notFound } from "../../lib/errors";
import { UploadIncompleteError } from "../../storage";
import { findDefaultPlan } from "../plans/service";
import type { AgentRow } from "../agents/agent-auth";
import { announceBackupCompleted, failBackup } from "./service";
import { runningHashes } from "./running-hashes";
import { backupFileName, backupStorage } from "./views";

export const MAX_PARTS = 100_000;


async function findUploadingBackup(ctx: AppContext, agent: AgentRow, backupId: string) {
  const [backup] = await ctx.db
    .select()
    .from(backups)
    .where(and(eq(backups.id, backupId), eq(backups.userId, agent.userId)));
  return assertUploading(agent, backup);
}

function assertUploading<T extends { agentId: string | null; status: string }>(agent: AgentRow, backup: T | undefined): T {
  if (!backup) throw notFound("Backup");
  if (backup.agentId !== agent.id) throw conflict("This backup belongs to another agent.");
  if (backup.status !== "pending" && backup.status !== "in-progress") {
    throw new AppError(409, "CONFLICT", `This backup is ${backup.status}; it no longer accepts uploads.`, { status: backup.status });
  }
  return backup;
}

/**
 * The backup a part is for (checked as findUploadingBackup does) with its owner's plan, in one
 * query: a part's fixed cost is mostly its database round trips.
 */
async function findBackupForPart(ctx: AppContext, agent: AgentRow, backupId: string) {
  const [row] = await ctx.db
    .select({ id: backups.id, userId: backups.userId, agentId: backups.agentId, status: backups.status, plan: plans })
    .from(backups)
    .innerJoin(users, eq(users.id, backups.userId))
    .leftJoin(plans, eq(plans.id, users.planId))
    .where(and(eq(backups.id, backupId), eq(backups.userId, agent.userId)));
  const backup = assertUploading(agent, row);
  // Users without a plan (or whose plan was removed) are on the default free plan, as planOfUser says.
  return { backup, plan: backup.plan ?? (await findDefaultPlan(ctx.db)) };
}

/** Parts received so far, for an agent resuming after a dropped connection. */
export async function getUploadStatus(ctx: AppContext, agent: AgentRow, backupId: string) {
  await findUploadingBackup(ctx, agent, backupId);
  const parts = await ctx.db
    .select({ partNumber: backupParts.partNumber, size: backupParts.size })
    .from(backupParts)
    .where(and(eq(backupParts.backupId, backupId), ne(backupParts.sha256, PART_IN_FLIGHT)))
    .orderBy(asc(backupParts.partNumber));
  return { parts, uploadedBytes: parts.reduce((sum, p) => sum + p.size, 0) };
}

/** The mark of a part row whose bytes are reserved but not yet stored (its request is running or died). */
const PART_IN_FLIGHT = "";

/**
 * Sets the bytes counted for one part (its row's size; null removes the row) and moves the user's
 * storage used by the difference, in one transaction with the backup row locked. So storage used
 * is always the sum of completed backups and of running backups' part rows: a request that dies
 * with the server leaves its reservation on a row, which the resent part or failBackup settles.
 * Answers "limit" (changing nothing) when growing would pass `limit`, "gone" when the backup
 * stopped running (failBackup has released its parts). `previous` is the part row it replaced.
 * With `markStored` (only with an unreachable `limit`, so no "limit" answer can follow it) the
 * statement that locks the backup row also marks it in progress: one round trip less per part.
 */
async function countPart(
  ctx: AppContext,
  backup: { id: string; userId: string },
  partNumber: number,
  next: { size: number; sha256: string } | null,
  limit: number,
  markStored = false,
): Promise<{ result: "counted" | "limit" | "gone"; previous?: { size: number; sha256: string } }> {
  return ctx.db.transaction(async (tx) => {
    const isRunning = and(eq(backups.id, backup.id), inArray(backups.status, ["pending", "in-progress"]));
    // Both statements lock the backup row, so failBackup cannot release parts in between.
    const [running] = markStored
      ? await tx
          .update(backups)
          .set({ status: "in-progress", lastActivityAt: ctx.now(), startedAt: sql`coalesce(${backups.startedAt}, now())` })
          .where(isRunning)
          .returning({ id: backups.id })
      : await tx.select({ id: backups.id }).from(backups).where(isRunning).for("update");
    if (!running) return { result: "gone" };
    const part = and(eq(backupParts.backupId, backup.id), eq(backupParts.partNumber, partNumber));
    const [row] = await tx.select({ size: backupParts.size, sha256: backupParts.sha256 }).from(backupParts).where(part);
    const delta = (next?.size ?? 0) - (row?.size ?? 0);
    if (delta > 0) {
      const reserved = await tx
        .update(users)
        .set({ storageUsed: sql`${users.storageUsed} + ${delta}` })
        .where(and(eq(users.id, backup.userId), sql`${users.storageUsed} + ${delta} <= ${limit}`))
        .returning({ id: users.id });
      if (reserved.length === 0) return { result: "limit", previous: row };
    } else if (delta < 0) {
      await tx.update(users).set({ storageUsed: sql`greatest(0, ${users.storageUsed} + ${delta})` }).where(eq(users.id, backup.userId));
    }
    if (!next) await tx.delete(backupParts).where(part);
    else {
      await tx
        .insert(backupParts)
        .values({ backupId: backup.id, partNumber, size: next.size, sha256: next.sha256 })
        .onConflictDoUpdate({
          target: [backupParts.backupId, backupParts.partNumber],
          set: { size: next.size, sha256: next.sha256, createdAt: ctx.now() },
        });
    }
    return { result: "counted", previous: row };
  });
}

/**
 * The request body as a stream that hands each chunk to `inspect` on its way and frees the chunk's
 * memory (detaches its buffer) once the storage has taken the next one. Both backends write or copy
 * a chunk before they read the next (FileStorage writes it, S3 copies it into its part buffer), and
 * the stream reads ahead nothing (high-water mark 0), so a chunk is dead when the next is pulled.
 * Why: the body arrives as fresh buffers of up to a few MB that the garbage collector reclaims only
 * in proportion to the live heap, so with the server's ~150 MB heap a 1 GB upload held +200-300 MB
 * of dead chunks (and 20 uploads ~1 GB); freeing each one when done keeps that near zero.
 */
function hashAndReleaseChunks(body: ReadableStream<Uint8Array>, inspect: (chunk: Uint8Array) => void) {
  const reader = body.getReader();
  let last: Uint8Array | null = null;
  let size = 0;
  const releaseLast = () => {
    // Only a chunk that is its whole own buffer: never memory shared with anything else.
    const buffer = last?.buffer as (ArrayBuffer & { resizable?: boolean; transfer?(length: number): ArrayBuffer }) | undefined;
    if (last && buffer instanceof ArrayBuffer && !buffer.resizable && last.byteOffset === 0 && last.byteLength === buffer.byteLength) {
      buffer.transfer?.(0);
    }
    last = null;
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        releaseLast();
        const { value, done } = await reader.read();
        if (done) return controller.close();
        size += value.byteLength;
        inspect(value);
        last = value;
        controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  return { stream, releaseLast, size: () => size };
}

/**
 * Stores one part of a backup's ciphertext (streamed, at most UPLOAD_PART_SIZE bytes), counting
 * it against the plan's storage. A part sent again replaces the earlier copy. Past the storage
 * limit the whole backup fails with STORAGE_LIMIT_EXCEEDED.
 */
export async function receivePart(
  ctx: AppContext,
  agent: AgentRow,
  backupId: string,
  partNumber: number,
  body: ReadableStream<Uint8Array> | null,
  declaredLength: number | null,
) {
  if (!Number.isInteger(partNumber) || partNumber < 0 || partNumber >= MAX_PARTS) throw badRequest("Invalid part number.");
  if (!body) throw badRequest("The part is empty.");
  if (declaredLength !== null && declaredLength > UPLOAD_PART_SIZE) {
    throw new AppError(413, "PAYLOAD_TOO_LARGE", `A part may hold at most ${UPLOAD_PART_SIZE} bytes.`);
  }
  const { backup, plan } = await findBackupForPart(ctx, agent, backupId);

  // Reserve before writing, so a user at their limit cannot fill the disk first.
  const reservation = { size: declaredLength ?? UPLOAD_PART_SIZE, sha256: PART_IN_FLIGHT };
  const { result: reserved, previous } = await countPart(ctx, backup, partNumber, reservation, plan.storageLimit);
  if (reserved === "gone") throw conflict("This backup stopped running; it no longer accepts uploads.");
  if (reserved === "limit") {
    const message = `Storage limit exceeded: this backup does not fit in your ${plan.name} plan's storage. Delete old backups, shorten retention or upgrade your plan.`;
    await failBackup(ctx, backupId, message, { storageLimit: true });
    throw new AppError(413, "STORAGE_LIMIT_EXCEEDED", message);
  }

  const running = runningHashes.get(backupId) ?? (partNumber === 0 ? { nextPart: 0, hash: createHash("sha256") } : null);
  const fileHash = running && running.nextPart === partNumber ? running.hash.copy() : null;
  const partHash = createHash("sha256");
  const counted = hashAndReleaseChunks(body, (chunk) => {
    partHash.update(chunk);
    fileHash?.update(chunk);
  });
  try {
    await ctx.storage.writeUploadPart(backupId, partNumber, partNumber * UPLOAD_PART_SIZE, counted.stream, { maxBytes: UPLOAD_PART_SIZE });
  } catch (error) {
    // Back to what was counted before this request (the earlier copy, or nothing).
    await countPart(ctx, backup, partNumber, previous ?? null, Number.MAX_SAFE_INTEGER);
    throw error;
  } finally {
    counted.releaseLast();
  }
  const size = counted.size();
  // Settle the reservation to the real size (never past the limit: the real size is at most the
  // reserved one) and mark the backup in progress, in one transaction.
  const settled = await countPart(ctx, backup, partNumber, { size, sha256: partHash.digest("hex") }, Number.MAX_SAFE_INTEGER, true);
  if (settled.result === "gone") {
    // Failed while this part was being written: its staged bytes were already discarded once.
    await ctx.storage.abortUpload(backupId);
    throw conflict("This backup stopped running; it no longer accepts uploads.");
  }
  if (fileHash) runningHashes.set(backupId, { nextPart: partNumber + 1, hash: fileHash });
  return { partNumber, size };
}

async function hashStoredFile(ctx: AppContext, key: string) {
  const hash = createHash("sha256");
  for await (const chunk of await ctx.storage.get(key)) hash.update(chunk);
  return hash.digest("hex");
}

/**
 * Checks that every part arrived and that size and SHA-256 match what the agent computed, writes
 * the manifest beside the parts, and only then marks the backup completed (visible, downloadable).
 */
export async function completeUpload(ctx: AppContext, agent: AgentRow, backupId: string, input: CompleteUploadRequest) {
  const backup = await findUploadingBackup(ctx, agent, backupId);
  const parts = await ctx.db
    .select()
    .from(backupParts)
    .where(eq(backupParts.backupId, backupId))
    .orderBy(asc(backupParts.partNumber));
  const problem =
    parts.length !== input.partCount || parts.some((p, i) => p.partNumber !== i)
      ? `expected parts 0..${input.partCount - 1}, received ${parts.length}`
      : parts.some((p) => p.sha256 === PART_IN_FLIGHT)
        ? "a part is still being received (or its request was cut); send it again"
        : parts.slice(0, -1).some((p) => p.size !== UPLOAD_PART_SIZE)
        ? "a part other than the last is short"
        : parts.reduce((sum, p) => sum + p.size, 0) !== input.size
          ? "the total size does not match"
          : null;
  if (problem) throw new AppError(409, "CONFLICT", `The upload is incomplete: ${problem}.`);

  const completedAt = ctx.now();
  const fileKey = backupStorage.file(backup.userId, backupId);
  try {
    await ctx.storage.completeUpload(backupId, fileKey, input.size, { fileName: backupFileName(backup) });
  } catch (error) {
    if (!(error instanceof UploadIncompleteError)) throw error;
    // The records say every part arrived but storage lost some (e.g. a crash before they reached disk).
    await failBackup(ctx, backupId, "Uploaded data was lost before the backup completed. The next backup will try again.");
    throw new AppError(409, "CONFLICT", "The uploaded data is incomplete on the server.");
  }
  const running = runningHashes.get(backupId);
  runningHashes.delete(backupId);
  const sha256 = running && running.nextPart === parts.length ? running.hash.digest("hex") : await hashStoredFile(ctx, fileKey);
  if (sha256 !== input.sha256) {
    await failBackup(ctx, backupId, "The uploaded file does not match its checksum (corrupted in transit). The next backup will try again.");
    throw new AppError(422, "BAD_REQUEST", "Checksum mismatch: the uploaded file is corrupt.");
  }

  const manifest = {
    format: "dbvault-backup-manifest",
    version: 1,
    backupId,
    userId: backup.userId,
    databaseName: backup.databaseName,
    type: backup.type,
    createdAt: backup.createdAt.toISOString(),
    completedAt: completedAt.toISOString(),
    size: input.size,
    sha256,
    file: "backup.enc.dbvault",
    fileName: backupFileName(backup),
    parts: parts.map((p) => ({ partNumber: p.partNumber, size: p.size, sha256: p.sha256 })),
  };
  await ctx.storage.put(backupStorage.manifest(backup.userId, backupId), new TextEncoder().encode(JSON.stringify(manifest, null, 2)));

  const [completed] = await ctx.db
    .update(backups)
    .set({
      status: "completed",
      size: input.size,
      sha256,
      storageKey: backupStorage.prefix(backup.userId, backupId),
      completedAt,
      lastActivityAt: completedAt,
      progress: backup.progress ? { ...backup.progress, percentage: 100 } : null,
    })
    .where(and(eq(backups.id, backupId), inArray(backups.status, ["pending", "in-progress"])))
    .returning();
  if (!completed) throw conflict("This backup was failed or deleted while it was completing.");
  ctx.log.info("backup completed", { backupId, size: input.size });
  await announceBackupCompleted(ctx, completed);
  return { status: "completed" as const, size: input.size, sha256 };
}
