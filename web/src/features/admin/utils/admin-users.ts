// Pure rules of the admin user list (spec 2 Admin Dashboard and spec 4 admin transitions): what
// is shown, what the search matches, and how the list changes after a successful call.
import type { AdminAgent, AdminPlan, AdminUser, BanState } from "../api/admin-api";

/** Spec 5: the reason sent when an admin bans without giving one. */
export const DEFAULT_BAN_REASON = "Policy violation";

export type DisplayStatus = "banned" | "active" | "inactive";

/** 'banned' if banned, otherwise the status, or 'active' when none is set (spec 2). */
export function displayStatusOf(user: Pick<AdminUser, "isBanned" | "status">): DisplayStatus {
  if (user.isBanned) return "banned";
  return user.status || "active";
}

/** The user's plan name: the embedded plan, else the plan list's entry, else empty. */
export function planNameOf(user: Pick<AdminUser, "plan">, plans: readonly Pick<AdminPlan, "_id" | "name">[]): string {
  if (!user.plan) return "";
  return user.plan.name || plans.find((plan) => plan._id === user.plan?._id)?.name || "";
}

/** Users whose name, email or plan name contains the search, ignoring case (spec 2). */
export function filterUsers<T extends Pick<AdminUser, "name" | "email" | "plan">>(
  users: readonly T[],
  search: string,
  plans: readonly Pick<AdminPlan, "_id" | "name">[] = [],
): T[] {
  const needle = search.trim().toLowerCase();
  if (!needle) return [...users];
  return users.filter((user) => [user.name, user.email, planNameOf(user, plans)].some((text) => (text ?? "").toLowerCase().includes(needle)));
}

/** The counts on the cards: all users, banned ones, and those whose status is inactive. */
export function countUsers(users: readonly Pick<AdminUser, "isBanned" | "status">[]): { total: number; banned: number; inactive: number } {
  return {
    total: users.length,
    banned: users.filter((user) => user.isBanned).length,
    inactive: users.filter((user) => user.status === "inactive").length,
  };
}

/** The ban reason to send: the trimmed text, or 'Policy violation' when blank (spec 5). */
export function banReasonToSend(reason: string): string {
  return reason.trim() || DEFAULT_BAN_REASON;
}

/** The email to save, trimmed; null when blank, since a blank email may not be saved (spec 5). */
export function emailToSave(email: string): string | null {
  const trimmed = email.trim();
  return trimmed ? trimmed : null;
}

/** The list with one user replaced by the server's updated copy. */
export function replaceUser(users: readonly AdminUser[], updated: AdminUser): AdminUser[] {
  return users.map((user) => (user._id === updated._id ? updated : user));
}

/** The list with the server's isBanned, banReason and bannedAt applied to one user (spec 4). */
export function applyBanState(users: readonly AdminUser[], userId: string, ban: BanState): AdminUser[] {
  return users.map((user) => (user._id === userId ? { ...user, isBanned: ban.isBanned, banReason: ban.banReason, bannedAt: ban.bannedAt } : user));
}

/** The list without one entry (a deleted user or agent). */
export function removeById<T extends { _id: string }>(items: readonly T[], id: string): T[] {
  return items.filter((item) => item._id !== id);
}

/** The agent's hostname, or 'unknown' when it never reported one (spec 2). */
export function agentHostOf(agent: Pick<AdminAgent, "hostname">): string {
  return agent.hostname?.trim() || "unknown";
}

/** The user's "Protect backups" policy in one line for the admin console: on, off, or turning off at a date. */
export function describeBackupProtection(protection: AdminUser["backupProtection"], formatWhen: (iso: string | null) => string): string {
  if (protection.state === "on") return `On since ${formatWhen(protection.enabledAt)}`;
  if (protection.state === "turning-off") return `Turning off at ${formatWhen(protection.offAt)}`;
  return "Off";
}
