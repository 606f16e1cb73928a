import { createHash } from "node:crypto";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { backupParts, backups, users } from "@db/schema";
import { type CompleteUploadRequest, UPLOAD_PART_SIZE } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { AppError, badRequest, conflict, notFound } from "../../lib/errors";
import { UploadIncompleteError } from "../../storage";
import { planOfUser } from "../plans/service";
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
  if (!backup) throw notFound("Backup");
  if (backup.agentId !== agent.id) throw conflict("This backup belongs to another agent.");
  if (backup.status !== "pending" && backup.status !== "in-progress") {
    throw new AppError(409, "CONFLICT", `This backup is ${backup.status}; it no longer accepts uploads.`, { status: backup.status });
  }
  return backup;
}

/** Parts received so far, for an agent resuming after a dropped connection. */
export async function getUploadStatus(ctx: AppContext, agent: AgentRow, backupId: string) {
  await findUploadingBackup(ctx, agent, backupId);
  const parts = await ctx.db
    .select({ partNumber: backupParts.partNumber, size: backupParts.size })
    .from(backupParts)
    .where(eq(backupParts.backupId, backupId))
    .orderBy(asc(backupParts.partNumber));
  return { parts, uploadedBytes: parts.reduce((sum, p) => sum + p.size, 0) };
}

/** Bytes of the user's plan still free; reserving them is atomic so parallel uploads cannot overshoot. */
async function reserveStorage(ctx: AppContext, userId: string, bytes: number, limit: number) {
  if (bytes <= 0) {
    await ctx.db.update(users).set({ storageUsed: sql`greatest(0, ${users.storageUsed} + ${bytes})` }).where(eq(users.id, userId));
    return true;
  }
  const reserved = await ctx.db
    .update(users)
    .set({ storageUsed: sql`${users.storageUsed} + ${bytes}` })
    .where(and(eq(users.id, userId), sql`${users.storageUsed} + ${bytes} <= ${limit}`))
    .returning({ id: users.id });
  return reserved.length > 0;
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
  const backup = await findUploadingBackup(ctx, agent, backupId);
  const [owner] = await ctx.db.select({ planId: users.planId }).from(users).where(eq(users.id, backup.userId));
  const plan = await planOfUser(ctx.db, owner?.planId ?? null);
  const [previous] = await ctx.db
    .select({ size: backupParts.size })
    .from(backupParts)
    .where(and(eq(backupParts.backupId, backupId), eq(backupParts.partNumber, partNumber)));

  // Reserve before writing, so a user at their limit cannot fill the disk first.
  const reservation = (declaredLength ?? UPLOAD_PART_SIZE) - (previous?.size ?? 0);
  if (!(await reserveStorage(ctx, backup.userId, reservation, plan.storageLimit))) {
    const message = `Storage limit exceeded: this backup does not fit in your ${plan.name} plan's storage. Delete old backups, shorten retention or upgrade your plan.`;
    await failBackup(ctx, backupId, message, { storageLimit: true });
    throw new AppError(413, "STORAGE_LIMIT_EXCEEDED", message);
  }

  const running = runningHashes.get(backupId) ?? (partNumber === 0 ? { nextPart: 0, hash: createHash("sha256") } : null);
  const fileHash = running && running.nextPart === partNumber ? running.hash.copy() : null;
  const partHash = createHash("sha256");
  let size = 0;
  const counted = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        size += chunk.byteLength;
        partHash.update(chunk);
        fileHash?.update(chunk);
        controller.enqueue(chunk);
      },
    }),
  );
  try {
    await ctx.storage.writeUploadPart(backupId, partNumber, partNumber * UPLOAD_PART_SIZE, counted, { maxBytes: UPLOAD_PART_SIZE });
  } catch (error) {
    await reserveStorage(ctx, backup.userId, -reservation, plan.storageLimit);
    throw error;
  }
  // Settle the reservation to the real size.
  await reserveStorage(ctx, backup.userId, size - (declaredLength ?? UPLOAD_PART_SIZE), plan.storageLimit);
  await ctx.db
    .insert(backupParts)
    .values({ backupId, partNumber, size, sha256: partHash.digest("hex") })
    .onConflictDoUpdate({
      target: [backupParts.backupId, backupParts.partNumber],
      set: { size, sha256: sql`excluded.sha256`, createdAt: ctx.now() },
    });
  await ctx.db
    .update(backups)
    .set({ status: "in-progress", lastActivityAt: ctx.now(), startedAt: sql`coalesce(${backups.startedAt}, now())` })
    .where(and(eq(backups.id, backupId), inArray(backups.status, ["pending", "in-progress"])));
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
