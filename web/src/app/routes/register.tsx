import { Link } from "wouter";
import { AuthCard } from "../../features/auth/components/auth-card";
import { RegisterForm } from "../../features/auth/components/register-form";
import { usePageTitle } from "../../lib/page-title";

export default function RegisterPage() {
  usePageTitle("Sign up");
  return (
    <AuthCard
      title="Create your account"
      subtitle={
        <>
          Already have an account?{" "}
          <Link href="/login" className="font-medium text-indigo-600 hover:text-indigo-500">
            Sign in
          </Link>
        </>
      }
    >
      <RegisterForm />
    </AuthCard>
  );
}
