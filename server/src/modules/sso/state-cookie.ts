import { SIGN_IN_TTL_MS } from "./sign-in";

// The state also goes to the browser that asked, as a cookie only the SSO routes receive (Lax: sent
// on the provider's top-level redirect back), so a callback link cannot be replayed in another,
// and the one-time code the callback hands out is exchanged only by that same browser (login CSRF).
const STATE_COOKIE = "dbvault_sso_state";

export const stateCookie = (state: string, secure: boolean, maxAgeSeconds = SIGN_IN_TTL_MS / 1000) =>
  `${STATE_COOKIE}=${state}; Path=/api/auth/sso; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;

export function readStateCookie(request: Request): string | undefined {
  const header = request.headers.get("cookie") ?? "";
  return header
    .split(";")
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${STATE_COOKIE}=`))
    ?.slice(STATE_COOKIE.length + 1);
}
