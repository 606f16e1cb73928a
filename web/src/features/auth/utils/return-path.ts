// Where to go back to after signing in again. A session that ends under the user (expired, or
// ended from another device or by a password change) sends them to /login mid-task; without
// this they landed on the dashboard and had to find their way back (the settings tab, the
// audit-log page they were reading). Kept per tab (sessionStorage), and only for the same user.
import { RETURN_PATH_STORAGE_KEY } from "../../../config/constants";

type ReturnPath = { path: string; userId: string | null };

function storage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.sessionStorage;
  } catch {
    return null; // storage disabled: sign-in lands on the dashboard as usual
  }
}

/** Only paths of this app: "/settings?tab=x", never "//host" or "https://…" (no open redirect). */
export function isAppPath(path: string): boolean {
  return path.startsWith("/") && !path.startsWith("//") && !path.startsWith("/\\") && !path.startsWith("/login");
}

/** Remembers `path` for the next sign-in of `userId` (null: whoever signs in, e.g. a deep link). */
export function rememberReturnPath(path: string, userId: string | null) {
  if (!isAppPath(path)) return;
  storage()?.setItem(RETURN_PATH_STORAGE_KEY, JSON.stringify({ path, userId } satisfies ReturnPath));
}

/** The remembered path for `userId`, once (it is forgotten either way). */
export function takeReturnPath(userId: string): string | null {
  const raw = storage()?.getItem(RETURN_PATH_STORAGE_KEY);
  storage()?.removeItem(RETURN_PATH_STORAGE_KEY);
  if (!raw) return null;
  try {
    const saved = JSON.parse(raw) as Partial<ReturnPath>;
    if (typeof saved.path !== "string" || !isAppPath(saved.path)) return null;
    if (saved.userId && saved.userId !== userId) return null;
    return saved.path;
  } catch {
    return null;
  }
}

/** Forgets the remembered path (a sign-out the user asked for). */
export function forgetReturnPath() {
  storage()?.removeItem(RETURN_PATH_STORAGE_KEY);
}
