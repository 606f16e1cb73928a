import { useAtomValue } from "jotai";
import { readSessionScope } from "./jwt";
import { signOut } from "./session";
import { banNoticeAtom, sessionAtom, sessionLoadingAtom } from "./session-store";

/** The session state of spec 3: token, user, isLoggedIn, loading, isBanned, isAdmin, ban details, logout. */
export function useSession() {
  const session = useAtomValue(sessionAtom);
  const loading = useAtomValue(sessionLoadingAtom);
  const banNotice = useAtomValue(banNoticeAtom);
  const user = session?.user ?? null;
  return {
    token: session?.token ?? null,
    user,
    loading,
    isLoggedIn: Boolean(session?.token && user),
    isAdmin: user?.role === "admin",
    /** A session from an organization's single sign-on: it may not change the account itself (auth/session-scope.ts). */
    isSsoSession: session?.token ? readSessionScope(session.token) !== null : false,
    isBanned: Boolean(user?.isBanned),
    banReason: user?.banReason ?? banNotice?.banReason ?? null,
    bannedAt: user?.bannedAt ?? banNotice?.bannedAt ?? null,
    logout: signOut,
  };
}
