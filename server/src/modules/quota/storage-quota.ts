// The one place that moves a user's storage used (users.storage_used). Every caller runs inside
// the transaction that writes what the bytes belong to (a part row, a completed or deleted
// backup), so storage used always equals the sizes of completed backups plus the part rows of
// running uploads.
import { and, eq, sql } from "drizzle-orm";
import type { Tx } from "@db/client";
import { users } from "@db/schema";

/** Adds `bytes` to the user's storage used if the total stays within `limit`; false (nothing changed) when it would not. */
export async function reserveStorage(tx: Tx, userId: string, bytes: number, limit: number): Promise<boolean> {
  const reserved = await tx
    .update(users)
    .set({ storageUsed: sql`${users.storageUsed} + ${bytes}` })
    .where(and(eq(users.id, userId), sql`${users.storageUsed} + ${bytes} <= ${limit}`))
    .returning({ id: users.id });
  return reserved.length > 0;
}

/** Takes `bytes` off the user's storage used (never below zero). */
export async function releaseStorage(tx: Tx, userId: string, bytes: number): Promise<void> {
  if (bytes <= 0) return;
  await tx
    .update(users)
    .set({ storageUsed: sql`greatest(0, ${users.storageUsed} - ${bytes})` })
    .where(eq(users.id, userId));
}
