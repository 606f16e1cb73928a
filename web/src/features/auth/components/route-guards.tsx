import type { ReactNode } from "react";
import { Redirect } from "wouter";
import { LoadingScreen } from "../../../components/ui/spinner";
import { useSession } from "../../../lib/auth/use-session";

/** Signed-in pages: 'Loading...' while the session loads, else /login, /banned, or the page. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { loading, isLoggedIn, isBanned } = useSession();
  if (loading) return <LoadingScreen />;
  if (!isLoggedIn) return <Redirect to="/login" replace />;
  if (isBanned) return <Redirect to="/banned" replace />;
  return <>{children}</>;
}

/** Admin pages: as RequireAuth, and non-admins go to /dashboard. */
export function RequireAdmin({ children }: { children: ReactNode }) {
  const { loading, isLoggedIn, isBanned, isAdmin } = useSession();
  if (loading) return <LoadingScreen />;
  if (!isLoggedIn) return <Redirect to="/login" replace />;
  if (isBanned) return <Redirect to="/banned" replace />;
  if (!isAdmin) return <Redirect to="/dashboard" replace />;
  return <>{children}</>;
}

/** Sign-in and sign-up pages: a signed-in visitor goes straight to the dashboard. */
export function RedirectIfSignedIn({ children }: { children: ReactNode }) {
  const { loading, isLoggedIn, isBanned } = useSession();
  if (!loading && isLoggedIn) return <Redirect to={isBanned ? "/banned" : "/dashboard"} replace />;
  return <>{children}</>;
}
