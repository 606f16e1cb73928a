import { AuthCard } from "../../features/auth/components/auth-card";
import { SsoSignIn } from "../../features/auth/components/sso-sign-in";
import { usePageTitle } from "../../lib/page-title";

export default function SsoPage() {
  usePageTitle("Sign in with SSO");
  return (
    <AuthCard title="Sign in with SSO" subtitle="For organizations that sign in with their own provider (OpenID Connect).">
      <SsoSignIn />
    </AuthCard>
  );
}
