import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useLocation, useSearch } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { Button, buttonClasses } from "../../../components/ui/button";
import { Field } from "../../../components/ui/field";
import { answerOf, readErrorMessage } from "../../../lib/api-client";
import { loginRequest } from "../api/auth-api";
import { AuthenticationCodeField } from "../../../components/auth/authentication-code-field";
import { showBanNotice, startSession } from "../../../lib/auth/session";
import { readNextPath } from "../../../lib/next-path";
import { deviceTokenOf, rememberDeviceToken } from "../utils/device-tokens";
import { type FieldErrors, validateLogin } from "../utils/validation";

/** Whether a refused sign-in asks for (another) two-factor code. */
/** A suspended account's answer (403 BANNED with the reason), or null. */
function banOf(error: unknown): { banReason: string | null; bannedAt: string | null } | null {
  const value = (error as { value?: { code?: unknown; banReason?: unknown; bannedAt?: unknown } } | null)?.value;
  if (value?.code !== "BANNED") return null;
  return { banReason: typeof value.banReason === "string" ? value.banReason : null, bannedAt: typeof value.bannedAt === "string" ? value.bannedAt : null };
}

function needsSecondFactor(error: unknown): boolean {
  const value = (error as { value?: { twoFactorRequired?: unknown } } | null)?.value;
  return Boolean(value && typeof value === "object" && value.twoFactorRequired === true);
}

export function LoginForm() {
  const [, setLocation] = useLocation();
  const next = readNextPath(useSearch());
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState<FieldErrors<"email" | "password">>({});
  const [failure, setFailure] = useState<string | null>(null);
  const { mutate: login, isPending: busy } = useMutation({
    mutationFn: (input: Parameters<typeof loginRequest>[0]) => answerOf(loginRequest(input)),
  });
  // Set once the server says the account signs in with two factors: the code field appears.
  const [askCode, setAskCode] = useState(false);
  const [code, setCode] = useState("");

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const found = validateLogin({ email, password });
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setFailure(null);
    const device = deviceTokenOf(email);
    login(
      { email: email.trim(), password, ...(askCode && code.trim() ? { code: code.trim() } : {}), ...(device ? { device } : {}) },
      {
        onSuccess: (data) => {
          rememberDeviceToken(data.user.email, data.deviceToken);
          startSession(data.token, data.user);
          setLocation(data.user.isBanned ? "/banned" : (next ?? "/dashboard"));
        },
        onError: (error) => {
          if (needsSecondFactor(error)) {
            // The first time, the prompt itself is the message; after that, the server's (wrong code).
            setFailure(askCode ? (readErrorMessage(error) ?? "Invalid authentication code") : null);
            setAskCode(true);
            return;
          }
          const ban = banOf(error);
          if (ban) return showBanNotice(ban);
          setFailure(readErrorMessage(error) ?? "Login failed");
        },
      },
    );
  }

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5">
      {failure ? <Alert>{failure}</Alert> : null}
      <Field
        label="Email address"
        name="email"
        type="email"
        autoComplete="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={errors.email}
      />
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
      {askCode ? (
        <AuthenticationCodeField
          autoFocus
          value={code}
          onChange={setCode}
          hint="Two-factor sign-in is on: enter the 6-digit code from your authenticator app, or a recovery code."
        />
      ) : null}
      <Button type="submit" className="w-full" disabled={busy}>
        {busy ? "Signing in..." : "Sign in"}
      </Button>
      <Link href="/sso" className={buttonClasses({ variant: "outline", className: "w-full" })}>
        Sign in with SSO
      </Link>
      <div className="relative py-2 text-center text-sm text-slate-500">
        <span className="bg-white px-2">New to DBVault?</span>
      </div>
      <Link href="/register" className={buttonClasses({ variant: "outline", className: "w-full" })}>
        Create Account
      </Link>
    </form>
  );
}
