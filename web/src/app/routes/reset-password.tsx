import { useParams } from "wouter";
import { AuthCard } from "../../features/auth/components/auth-card";
import { ResetPasswordForm } from "../../features/auth/components/reset-password-form";
import { usePageTitle } from "../../lib/page-title";

export default function ResetPasswordPage() {
  usePageTitle("Reset Password");
  const { token } = useParams<{ token?: string }>();
  return (
    <AuthCard title="Reset your password" subtitle="Choose a new password for your account.">
      <ResetPasswordForm token={token} />
    </AuthCard>
  );
}
