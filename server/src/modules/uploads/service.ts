import { createHash } from "node:crypto";
import { verifyElsewhereIfSealed } from "../verification/service";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { type AgentRow, backupParts, backups, plans, organizations } from "@db/schema";
import { type CompleteUploadRequest, UPLOAD_PART_SIZE } from "@protocol/agent-protocol";
import { releaseWholeBuffer } from "@protocol/release-buffer";
import type { AppContext } from "../../context";
import { AppError, badRequest, conflict, notFound } from "../../lib/errors";
import { StorageLimitError, UploadIncompleteError } from "../../storage";
import { findDefaultPlan } from "../plans/service";
import { lockForNewBackup } from "../retention-rules/lock-until";
import { releaseStorage, reserveStorage } from "../organizations/storage-quota";
import { flagAnomaly } from "../verification/anomaly";
import { markBackupCompleted, markBackupUploading } from "../backups/records";
import { announceBackupCompleted, failBackup } from "../backups/service";
import { followSubject } from "../agent-jobs/service";
import { backupFileName, backupStorage } from "../stored-files/keys";
import { consistencyColumns } from "./consistency";
import type { HashTurn } from "./running-hashes";

// The upload pipeline of a backup file: parts received and stored as they come (each counted in
// the storage quota, hashed in order while it streams), then completed: joined, checked against
// the agent's size and SHA-256, and handed to backups as a completed backup.

export const MAX_PARTS = 100_000;

async function findUploadingBackup(ctx: AppContext, agent: AgentRow, backupId: string) {
  const [backup] = await ctx.db
    .select()
    .from(backups)
    .where(and(eq(backups.id, backupId), eq(backups.organizationId, agent.organizationId)));
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
    .select({ id: backups.id, organizationId: backups.organizationId, agentId: backups.agentId, status: backups.status, plan: plans })
    .from(backups)
    .innerJoin(organizations, eq(organizations.id, backups.organizationId))
    .leftJoin(plans, eq(plans.id, organizations.planId))
    .where(and(eq(backups.id, backupId), eq(backups.organizationId, agent.organizationId)));
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
    .where(and(eq(backupParts.backupId, backupId), eq(backupParts.stored, true)))
    .orderBy(asc(backupParts.partNumber));
  return { parts, uploadedBytes: parts.reduce((sum, p) => sum + p.size, 0) };
}

type PartRow = { size: number; stored: boolean };

/**
 * Sets the bytes counted for one part (its row's size; null removes the row) and moves the user's
 * storage used by the difference, in one transaction with the backup row locked. So storage used
 * is always the sum of completed backups and of running backups' part rows: a request that dies
 * with the server leaves its reservation on a row (not stored), which the resent part or
 * failBackup settles. Answers "limit" (changing nothing) when growing would pass `limit`, "gone"
 * when the backup stopped running (failBackup has released its parts). `previous` is the part
 * row it replaced.
 */
async function countPart(
  ctx: AppContext,
  backup: { id: string; organizationId: string },
  partNumber: number,
  next: PartRow | null,
  limit: number,
): Promise<{ result: "counted" | "limit" | "gone"; previous?: PartRow }> {
  return ctx.db.transaction(async (tx) => {
    const part = and(eq(backupParts.backupId, backup.id), eq(backupParts.partNumber, partNumber));
    // Locks the backup row (so failBackup cannot release parts in between) and reads the part's row.
    const [running] = await tx
      .select({ id: backups.id, size: backupParts.size, stored: backupParts.stored })
      .from(backups)
      .leftJoin(backupParts, part)
      .where(and(eq(backups.id, backup.id), inArray(backups.status, ["pending", "in-progress"])))
      .for("update", { of: backups });
    if (!running) return { result: "gone" };
    const row = running.size === null || running.stored === null ? undefined : { size: running.size, stored: running.stored };
    const delta = (next?.size ?? 0) - (row?.size ?? 0);
    if (delta > 0) {
      if (!(await reserveStorage(tx, backup.organizationId, delta, limit))) return { result: "limit", previous: row };
    } else if (delta < 0) {
      await releaseStorage(tx, backup.organizationId, -delta);
    }
    if (!next) await tx.delete(backupParts).where(part);
    else {
      await tx
        .insert(backupParts)
        .values({ backupId: backup.id, partNumber, ...next })
        .onConflictDoUpdate({ target: [backupParts.backupId, backupParts.partNumber], set: { ...next, createdAt: ctx.now() } });
    }
    return { result: "counted", previous: row };
  });
}

/**
 * The usual settlement of a stored part, in one statement: when the backup still runs and the
 * part's reservation was its real size, marks the part stored and the backup in progress. The
 * backup row is updated (so locked) first, as countPart locks it. False when it could not (the
 * backup stopped, or the size differs): countPart then settles.
 */
async function markPartStored(ctx: AppContext, backupId: string, partNumber: number, size: number) {
  const running = markBackupUploading(ctx, backupId);
  const marked = await ctx.db
    .with(running)
    .update(backupParts)
    .set({ stored: true, createdAt: ctx.now() })
    .where(and(eq(backupParts.backupId, sql`(select ${running.id} from ${running})`), eq(backupParts.partNumber, partNumber), eq(backupParts.size, size)))
    .returning({ partNumber: backupParts.partNumber });
  // Running: its job is taken, never sent again (agent-jobs/service.ts).
  if (marked.length === 1) await followSubject(ctx, ctx.db, "backup", backupId, "in-progress");
  return marked.length === 1;
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
    releaseWholeBuffer(last);
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
 * limit the whole backup fails with STORAGE_LIMIT_EXCEEDED. `sayGo` tells an agent that holds the
 * body back that the server is ready to read it.
 */
/** A part over UPLOAD_PART_SIZE, whether its Content-Length said so or its streamed body did. */
const partTooLarge = () => new AppError(413, "PAYLOAD_TOO_LARGE", `A part may hold at most ${UPLOAD_PART_SIZE} bytes.`);

export async function receivePart(
  ctx: AppContext,
  agent: AgentRow,
  backupId: string,
  partNumber: number,
  body: ReadableStream<Uint8Array> | null,
  declaredLength: number | null,
  sayGo?: () => void,
) {
  if (!Number.isInteger(partNumber) || partNumber < 0 || partNumber >= MAX_PARTS) throw badRequest("Invalid part number.");
  if (!body) throw badRequest("The part is empty.");
  if (declaredLength !== null && declaredLength > UPLOAD_PART_SIZE) {
    throw partTooLarge();
  }
  // Before any await here: parts register with the running hash in the order they reach this point.
  const hashTurn = ctx.runningHashes.join(backupId, partNumber);
  try {
    const { backup, plan } = await findBackupForPart(ctx, agent, backupId);
    // A part that starts past the plan's storage can never fit; refused before any byte is written
    // (a huge offset would make a huge sparse staging file).
    const possibleParts = Math.ceil(plan.storageLimit / UPLOAD_PART_SIZE);
    if (partNumber >= possibleParts) {
      throw badRequest(`Invalid part number: a backup on the ${plan.name} plan has at most ${possibleParts} parts.`);
    }

    // Reserve before writing, so a user at their limit cannot fill the disk first.
    const reservation = { size: declaredLength ?? UPLOAD_PART_SIZE, stored: false };
    const { result: reserved, previous } = await countPart(ctx, backup, partNumber, reservation, plan.storageLimit);
    if (reserved === "gone") throw conflict("This backup stopped running; it no longer accepts uploads.");
    if (reserved === "limit") {
      const message = `Storage limit exceeded: this backup does not fit in your ${plan.name} plan's storage. Delete old backups, shorten retention or upgrade your plan.`;
      await failBackup(ctx, backupId, message, { storageLimit: true });
      throw new AppError(413, "STORAGE_LIMIT_EXCEEDED", message);
    }

    let size: number;
    try {
      size = await storePartBody(ctx, backupId, partNumber, body, hashTurn, sayGo);
    } catch (error) {
      // Back to what was counted before this request (the earlier copy, or nothing).
      await countPart(ctx, backup, partNumber, previous ?? null, Number.MAX_SAFE_INTEGER);
      throw error;
    }
    // Settle the reservation to the real size (never past the limit: the real size is at most the
    // reserved one) and mark the backup in progress.
    const settled =
      (await markPartStored(ctx, backupId, partNumber, size)) ||
      (await countPart(ctx, backup, partNumber, { size, stored: true }, Number.MAX_SAFE_INTEGER)).result === "counted";
    if (!settled) {
      // Failed while this part was being written: its staged bytes were already discarded once.
      await ctx.storage.abortUpload(backupId);
      throw conflict("This backup stopped running; it no longer accepts uploads.");
    }
    ctx.metrics.countUploadedBytes(size);
    return { partNumber, size };
  } finally {
    hashTurn.done(false); // no-op when the body was stored (done(true) came first)
  }
}

/**
 * Streams a part's body to storage once it is this part's turn: after the parts before it (the
 * whole-file hash takes them in order) and through the server-wide body gate. Gives the turn back
 * as soon as the bytes are stored, so the next part's body streams while this one settles.
 */
async function storePartBody(ctx: AppContext, backupId: string, partNumber: number, body: ReadableStream<Uint8Array>, hashTurn: HashTurn, sayGo?: () => void) {
  const fileHash = await hashTurn.ready();
  const leaveGate = await ctx.bodyGate.enter();
  const counted = hashAndReleaseChunks(body, (chunk) => fileHash?.update(chunk));
  let stored = false;
  try {
    sayGo?.();
    await ctx.storage.writeUploadPart(backupId, partNumber, partNumber * UPLOAD_PART_SIZE, counted.stream, { maxBytes: UPLOAD_PART_SIZE });
    stored = true;
  } catch (error) {
    // A body without Content-Length that turned out too long: nothing of it was kept.
    if (error instanceof StorageLimitError) throw partTooLarge();
    throw error;
  } finally {
    counted.releaseLast();
    hashTurn.done(stored);
    leaveGate(counted.size());
  }
  return counted.size();
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
  // Refused before anything is published, so the agent's report is fixed and sent again.
  consistencyColumns(input.consistency);
  const backup = await findUploadingBackup(ctx, agent, backupId);
  const parts = await ctx.db.select().from(backupParts).where(eq(backupParts.backupId, backupId)).orderBy(asc(backupParts.partNumber));
  const problem =
    parts.length !== input.partCount || parts.some((p, i) => p.partNumber !== i)
      ? `expected parts 0..${input.partCount - 1}, received ${parts.length}`
      : parts.some((p) => !p.stored)
        ? "a part is still being received (or its request was cut); send it again"
        : parts.slice(0, -1).some((p) => p.size !== UPLOAD_PART_SIZE)
          ? "a part other than the last is short"
          : parts.reduce((sum, p) => sum + p.size, 0) !== input.size
            ? "the total size does not match"
            : null;
  if (problem) throw new AppError(409, "CONFLICT", `The upload is incomplete: ${problem}.`);

  const fileKey = backupStorage.file(backup.organizationId, backupId);
  try {
    await ctx.storage.completeUpload(backupId, fileKey, input.size, { fileName: backupFileName(backup) });
  } catch (error) {
    if (!(error instanceof UploadIncompleteError)) throw error;
    // A completion asked again: an earlier attempt published the file, then failed or died before
    // recording it (a manifest write refused, a restart). The file is there whole; its checksum,
    // read from storage since that attempt spent the running hash, decides as for any upload.
    if ((await ctx.storage.stat(fileKey))?.size === input.size) return recordCompletedUpload(ctx, backup, parts, input);
    // The records say every part arrived but storage lost some (e.g. a crash before they reached disk).
    await failBackup(ctx, backupId, "Uploaded data was lost before the backup completed. The next backup will try again.");
    throw new AppError(409, "CONFLICT", "The uploaded data is incomplete on the server.");
  }
  return recordCompletedUpload(ctx, backup, parts, input);
}

/** Checks the published file's checksum, writes the manifest beside it and marks the backup completed. */
async function recordCompletedUpload(
  ctx: AppContext,
  backup: typeof backups.$inferSelect,
  parts: (typeof backupParts.$inferSelect)[],
  input: CompleteUploadRequest,
) {
  const backupId = backup.id;
  const completedAt = ctx.now();
  const fileKey = backupStorage.file(backup.organizationId, backupId);
  let sha256 = ctx.runningHashes.finish(backupId, parts.length);
  if (!sha256) {
    // Parts arrived out of order, on another instance or across a restart: read the file once more.
    ctx.log.warn("checksumming the stored file again (parts were not all hashed as they arrived)", { backupId, size: input.size });
    sha256 = await hashStoredFile(ctx, fileKey);
  }
  if (sha256 !== input.sha256) {
    await failBackup(ctx, backupId, "The uploaded file does not match its checksum (corrupted in transit). The next backup will try again.");
    throw new AppError(422, "BAD_REQUEST", "Checksum mismatch: the uploaded file is corrupt.");
  }

  const manifest = {
    format: "dbvault-backup-manifest",
    version: 1,
    backupId,
    organizationId: backup.organizationId,
    databaseName: backup.databaseName,
    type: backup.type,
    createdAt: backup.createdAt.toISOString(),
    completedAt: completedAt.toISOString(),
    size: input.size,
    sha256,
    file: "backup.enc.dbvault",
    fileName: backupFileName(backup),
    parts: parts.map((p) => ({ partNumber: p.partNumber, size: p.size })),
  };
  // Locked (STORAGE_OBJECT_LOCK) once its checksum is known good: a corrupt upload is not kept.
  const retainUntil = await lockForNewBackup(ctx, backup);
  if (retainUntil) await ctx.storage.retain(fileKey, retainUntil);
  await ctx.storage.put(backupStorage.manifest(backup.organizationId, backupId), new TextEncoder().encode(JSON.stringify(manifest, null, 2)), { retainUntil });

  const completed = await markBackupCompleted(
    ctx,
    backup,
    {
      size: input.size,
      sha256,
      collections: input.collections ?? null,
      keyId: input.keyId ?? null,
      ...consistencyColumns(input.consistency),
      progress: backup.progress ? { ...backup.progress, percentage: 100 } : null,
    },
    completedAt,
  );
  if (!completed) {
    // Another completion of this upload (the agent's retry while its first try still ran) recorded
    // it first: the same file, so the same answer, and it is counted and announced once.
    const [current] = await ctx.db.select({ status: backups.status, size: backups.size, sha256: backups.sha256 }).from(backups).where(eq(backups.id, backupId));
    if (current?.status === "completed" && current.size === input.size && current.sha256 === sha256)
      return { status: "completed" as const, size: input.size, sha256 };
    throw conflict("This backup was failed or deleted while it was completing.");
  }
  await followSubject(ctx, ctx.db, "backup", backupId, "completed");
  ctx.log.info("backup completed", { backupId, size: input.size });
  // The backup is completed whatever happens here: a failed comparison is logged, not the upload's failure.
  const anomaly = await flagAnomaly(ctx, completed).catch((error) => {
    ctx.log.error("could not compare a backup with the ones before it", { backupId, error });
    return null;
  });
  await announceBackupCompleted(ctx, { ...completed, anomaly });
  // A write-only agent cannot read back what it sealed: a restore agent verifies it.
  await verifyElsewhereIfSealed(ctx, completed);
  return { status: "completed" as const, size: input.size, sha256 };
}
