// The one place that moves an organization's storage used (organizations.storage_used). Every caller runs inside
// the transaction that writes what the bytes belong to (a part row, a completed or deleted
// backup), so storage used always equals the sizes of completed backups plus the part rows of
// running uploads.
import { and, eq, sql } from "drizzle-orm";
import type { Tx } from "@db/client";
import { organizations } from "@db/schema";

/** Adds `bytes` to the organization's storage used if the total stays within `limit`; false (nothing changed) when it would not. */
export async function reserveStorage(tx: Tx, organizationId: string, bytes: number, limit: number): Promise<boolean> {
  const reserved = await tx
    .update(organizations)
    .set({ storageUsed: sql`${organizations.storageUsed} + ${bytes}` })
    .where(and(eq(organizations.id, organizationId), sql`${organizations.storageUsed} + ${bytes} <= ${limit}`))
    .returning({ id: organizations.id });
  return reserved.length > 0;
}

/** Takes `bytes` off the organization's storage used (never below zero). */
export async function releaseStorage(tx: Tx, organizationId: string, bytes: number): Promise<void> {
  if (bytes <= 0) return;
  await tx
    .update(organizations)
    .set({ storageUsed: sql`greatest(0, ${organizations.storageUsed} - ${bytes})` })
    .where(eq(organizations.id, organizationId));
}
