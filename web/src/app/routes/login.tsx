import { Link } from "wouter";
import { AuthCard } from "../../features/auth/components/auth-card";
import { LoginForm } from "../../features/auth/components/login-form";
import { usePageTitle } from "../../lib/page-title";

export default function LoginPage() {
  usePageTitle("Sign in");
  return (
    <AuthCard
      title="Sign in to your account"
      subtitle={
        <>
          Or{" "}
          <Link href="/register" className="font-medium text-indigo-600 hover:text-indigo-500">
            create a new account
          </Link>
        </>
      }
    >
      <LoginForm />
    </AuthCard>
  );
}
