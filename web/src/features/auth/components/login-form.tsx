import { type FormEvent, useState } from "react";
import { Link, useLocation } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { Button, buttonClasses } from "../../../components/ui/button";
import { Field } from "../../../components/ui/field";
import { readErrorMessage } from "../../../lib/api-client";
import { loginRequest } from "../api/auth-api";
import { startSession } from "../session";
import { type FieldErrors, validateLogin } from "../utils/validation";

export function LoginForm() {
  const [, setLocation] = useLocation();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState<FieldErrors<"email" | "password">>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const found = validateLogin({ email, password });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    setFailure(null);
    try {
      const { data, error } = await loginRequest({ email: email.trim(), password });
      if (error || !data) {
        setFailure(readErrorMessage(error) ?? "Login failed");
        return;
      }
      startSession(data.token, data.user);
      setLocation(data.user.isBanned ? "/banned" : "/dashboard");
    } catch (caught) {
      setFailure(caught instanceof Error ? caught.message || "Login failed" : "Invalid email or password. Please try again.");
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5">
      {failure ? <Alert>{failure}</Alert> : null}
      <Field label="Email address" name="email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={errors.email} />
      <Field
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={errors.password}
        labelAction={
          <Link href="/forgot-password" className="text-sm font-medium text-indigo-600 hover:text-indigo-500">
            Forgot your password?
          </Link>
        }
      />
      <Button type="submit" className="w-full" disabled={busy}>
        {busy ? "Signing in..." : "Sign in"}
      </Button>
      <div className="relative py-2 text-center text-sm text-slate-500">
        <span className="bg-white px-2">New to DBVault?</span>
      </div>
      <Link href="/register" className={buttonClasses({ variant: "outline", className: "w-full" })}>
        Create Account
      </Link>
    </form>
  );
}
