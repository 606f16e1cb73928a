// The stored auth record (spec 3): {token, user, timestamp} under one product key. The user's API
// key is left out: storage outlives the tab and is readable by any script on the origin, so the
// key lives only in memory and Settings fetches it from the server when it is shown.
import { AUTH_STORAGE_KEY, REGISTRATION_STORAGE_KEY } from "../../config/constants";
import type { SessionUser } from "./session-api";

export type AuthRecord = { token: string; user: SessionUser; timestamp: string };

function storage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage;
  } catch {
    return null; // storage disabled (privacy settings): the session lasts as long as the tab
  }
}

/** The stored record, or null when absent or malformed. */
export function readAuthRecord(): AuthRecord | null {
  const raw = storage()?.getItem(AUTH_STORAGE_KEY);
  if (!raw) return null;
  try {
    const record = JSON.parse(raw) as Partial<AuthRecord>;
    if (typeof record.token !== "string" || !record.user || typeof record.user !== "object") return null;
    return { token: record.token, user: { ...(record.user as SessionUser), apiKey: "" }, timestamp: String(record.timestamp ?? "") };
  } catch {
    return null;
  }
}

export function writeAuthRecord(token: string, user: SessionUser) {
  const { apiKey: _kept, ...storedUser } = user;
  const record = { token, user: storedUser, timestamp: new Date().toISOString() };
  storage()?.setItem(AUTH_STORAGE_KEY, JSON.stringify(record));
}

/** After a registration the browser also keeps a logged-in flag, e-mail, name and user id. */
export function writeRegistrationInfo(user: { id: string; email: string; name: string }) {
  storage()?.setItem(REGISTRATION_STORAGE_KEY, JSON.stringify({ isLoggedIn: true, email: user.email, name: user.name, userId: user.id }));
}

export function clearAuthStorage() {
  storage()?.removeItem(AUTH_STORAGE_KEY);
  storage()?.removeItem(REGISTRATION_STORAGE_KEY);
}
