import { AuthCard } from "../../features/auth/components/auth-card";
import { ForgotPasswordForm } from "../../features/auth/components/forgot-password-form";
import { usePageTitle } from "../../lib/page-title";

export default function ForgotPasswordPage() {
  usePageTitle("Forgot Password");
  return (
    <AuthCard title="Forgot your password?" subtitle="Enter your email address and we'll send you a link to reset your password.">
      <ForgotPasswordForm />
    </AuthCard>
  );
}
