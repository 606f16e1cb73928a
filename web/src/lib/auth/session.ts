// Session transitions of spec section 4: sign in, restore on load, sign out, expiry.
import { navigate } from "wouter/use-browser-location";
import { dismissToast, toast } from "../../components/ui/toast-store";
import { profileQuery } from "../api/get-profile";
import { queryClient } from "../query-client";
import { logoutRequest, type SessionUser } from "./session-api";
import { type BanNotice, banNoticeAtom, sessionAtom, sessionLoadingAtom, sessionStore } from "./session-store";
import { clearAuthStorage, readAuthRecord, writeAuthRecord } from "./auth-storage";
import { isTokenExpired } from "./jwt";
import { chooseOrganization, chosenOrganizationId, forgetChosenOrganization, isNotAMemberAnswer } from "../organization/chosen-organization";

export const currentToken = () => sessionStore.get(sessionAtom)?.token ?? null;

/** Stores and starts a session after sign-in or registration. */
export function startSession(token: string, user: SessionUser) {
  // 'Session expired' (kept on top) has been read: it must not hold back the new session's toasts.
  dismissToast();
  writeAuthRecord(token, user);
  sessionStore.set(sessionAtom, { token, user });
  sessionStore.set(sessionLoadingAtom, false);
}

/**
 * Ends the session: storage cleared, to /login, and a 'Signed out' toast unless silent. A sign-out
 * the user asked for (not silent) also revokes the token on the server, without waiting for it.
 */
export function signOut(options: { silent?: boolean } = {}) {
  const token = sessionStore.get(sessionAtom)?.token ?? readAuthRecord()?.token;
  if (!options.silent && token) void logoutRequest(token).catch(() => undefined);
  clearAuthStorage();
  forgetChosenOrganization();
  // The next user of this tab must not see the previous one's cached answers.
  queryClient.clear();
  sessionStore.set(sessionAtom, null);
  sessionStore.set(banNoticeAtom, null);
  navigate("/login");
  if (!options.silent) toast({ title: "Signed out", description: "You have been signed out." });
}

/** A sign-in answered that the account is suspended: the /banned page shows the reason. */
export function showBanNotice(notice: BanNotice) {
  sessionStore.set(banNoticeAtom, notice);
  navigate("/banned");
}

/**
 * The token ran out (or the server refused it): silent sign-out, 'Session expired', /login. The
 * toast keeps its place over the refused call's own failure toast, which would replace it.
 */
export function expireSession() {
  if (!sessionStore.get(sessionAtom) && !readAuthRecord()) return;
  signOut({ silent: true });
  toast({ title: "Session expired", description: "Please sign in again.", variant: "destructive", keepOnTop: true });
}

/** Merges fresh user fields (e.g. after a profile update) into the session and the stored record. */
export function updateSessionUser(changes: Partial<SessionUser>) {
  const session = sessionStore.get(sessionAtom);
  if (!session) return;
  const user = { ...session.user, ...changes };
  writeAuthRecord(session.token, user);
  sessionStore.set(sessionAtom, { ...session, user });
}

/** Checks the token's exp claim; run every 30 s and on auth failures. */
export function checkSessionExpiry(now = Date.now()) {
  const session = sessionStore.get(sessionAtom);
  if (session && isTokenExpired(session.token, now)) expireSession();
}

/**
 * A call with our token was refused. 403 BANNED: the account was suspended, so the session
 * learns it and the user is sent to /banned. 401: the server no longer accepts the token
 * (expired, or ended by a password change), so the session is over. Other 403s (e.g. an admin
 * page for a non-admin) end it only when the token has in fact expired.
 */
export function handleAuthFailure(status: number, body: unknown) {
  const answer = (body ?? {}) as { code?: string; banReason?: string | null; bannedAt?: string | null };
  if (status === 403 && answer.code === "BANNED") {
    updateSessionUser({ isBanned: true, banReason: answer.banReason ?? null, bannedAt: answer.bannedAt ?? null });
    navigate("/banned");
    return;
  }
  if (status === 401) {
    expireSession();
    return;
  }
  // Removed from the organization chosen (or it was deleted): back to the personal one.
  if (isNotAMemberAnswer(status, body)) return leaveLostOrganization();
  checkSessionExpiry();
}

/**
 * The organization chosen in the switcher refused the caller (removed, or the team deleted): back
 * to the personal one, saying why. Nothing when the personal one was in use already.
 */
export function leaveLostOrganization() {
  if (!chosenOrganizationId()) return;
  chooseOrganization(null);
  toast({ title: "You are no longer a member of that organization", description: "You are back in your own.", variant: "destructive" });
}

/** Reads the stored session at start-up; an expired or unreadable one is cleared (to /login). */
export function restoreSession() {
  const record = readAuthRecord();
  if (record && !isTokenExpired(record.token)) {
    sessionStore.set(sessionAtom, { token: record.token, user: record.user });
    sessionStore.set(sessionLoadingAtom, false);
    void refreshSessionUser();
    return;
  }
  sessionStore.set(sessionLoadingAtom, false);
  if (record) expireSession();
  else clearAuthStorage();
}

// The stored user may be stale (role changed, account banned since): ask the server once.
async function refreshSessionUser() {
  // Through the cache, so the profile page and Settings start from this answer.
  const data = await queryClient.fetchQuery(profileQuery).catch(() => null);
  if (!data) return; // refusals are handled by the client's auth-failure hook
  updateSessionUser({
    email: data.email,
    name: data.name,
    role: data.role,
    isBanned: data.isBanned,
    banReason: data.banReason,
    bannedAt: data.bannedAt,
  });
}
