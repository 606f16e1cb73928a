// Passwords: hashing, checking, and the "current password" check of sensitive changes. A leaf of
// its own so that two-factor and re-authentication can use it without importing sign-in.
import { randomBytes } from "node:crypto";
import type { users } from "@db/schema";
import type { AppContext } from "../../context";
import { badRequest } from "../../lib/errors";
import { admitPasswordCheck } from "./throttle";

type UserRow = typeof users.$inferSelect;

/**
 * Checks the signed-in user's password before a sensitive change; 400 when wrong, and wrong
 * answers are rate-limited per user.
 */
export async function confirmCurrentPassword(ctx: AppContext, user: UserRow, password: string) {
  const check = await admitPasswordCheck(ctx, user.id);
  if (!(await verifyPassword(password, user.passwordHash))) throw badRequest("Current password is incorrect");
  await check.succeeded();
}

export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: "argon2id" });

// Verified against when the e-mail is unknown, so a miss costs as much time as a wrong password.
let dummyHash: Promise<string> | null = null;

/** Checks a password against a stored hash (or a dummy one) in constant-ish time. */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  dummyHash ??= hashPassword(randomBytes(16).toString("hex"));
  const ok = await Bun.password.verify(password, hash ?? (await dummyHash));
  return ok && hash !== null;
}
