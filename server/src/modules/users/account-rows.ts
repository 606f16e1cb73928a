// Changes to an account's row that others decide on: the admin console (role, status, e-mail, a
// ban, deletion) and the first admin named at start-up (bootstrap.ts). The checks stay with them.
import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { users } from "@db/schema";

type UserRow = typeof users.$inferSelect;
export type AccountChanges = Partial<Pick<UserRow, "role" | "status" | "email" | "isBanned" | "banReason" | "bannedAt">>;

/**
 * Saves the changes (stamped `updatedAt` when given); `endTokens` moves the token version on, so
 * no token issued before works again. Answers the row as saved (undefined: no such account).
 */
export async function updateAccount(
  db: DbOrTx,
  userId: string,
  changes: AccountChanges,
  options: { endTokens?: boolean; updatedAt?: Date } = {},
): Promise<UserRow | undefined> {
  const [updated] = await db
    .update(users)
    .set({
      ...changes,
      ...(options.endTokens ? { tokenVersion: sql`${users.tokenVersion} + 1` } : {}),
      ...(options.updatedAt ? { updatedAt: options.updatedAt } : {}),
    })
    .where(eq(users.id, userId))
    .returning();
  return updated;
}

/** Deletes the account; what it owns goes through the foreign keys. */
export async function deleteAccountRow(db: DbOrTx, userId: string): Promise<void> {
  await db.delete(users).where(eq(users.id, userId));
}
