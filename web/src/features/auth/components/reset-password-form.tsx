import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { Link, useLocation } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Field } from "../../../components/ui/field";
import { Spinner } from "../../../components/ui/spinner";
import { RESET_REDIRECT_MS } from "../../../config/constants";
import { answerOf, readErrorMessage } from "../../../lib/api-client";
import { resetPasswordRequest } from "../api/auth-api";
import { useResetTokenCheck } from "../api/get-reset-token";
import { type FieldErrors, validateResetPassword } from "../utils/validation";

type Phase = { name: "verifying" } | { name: "invalid"; message: string } | { name: "valid" } | { name: "done"; message: string };

/** Spec 4: verifying, then valid or invalid, then success followed by a redirect after 3 seconds. */
export function ResetPasswordForm({ token }: { token: string | undefined }) {
  const [, setLocation] = useLocation();
  const check = useResetTokenCheck(token);
  const [doneMessage, setDoneMessage] = useState<string | null>(null);
  const phase: Phase =
    doneMessage !== null
      ? { name: "done", message: doneMessage }
      : !token
        ? { name: "invalid", message: "Invalid reset token" }
        : check.isError
          ? { name: "invalid", message: readErrorMessage(check.error) ?? "Invalid or expired reset token" }
          : !check.data
            ? { name: "verifying" }
            : check.data.valid
              ? { name: "valid" }
              : { name: "invalid", message: "Invalid or expired reset token" };
  const [values, setValues] = useState({ password: "", confirmPassword: "" });
  const [errors, setErrors] = useState<FieldErrors<"password" | "confirmPassword">>({});
  const [failure, setFailure] = useState<string | null>(null);
  const { mutate: resetPassword, isPending: busy } = useMutation({
    mutationFn: ({ token, password }: { token: string; password: string }) => answerOf(resetPasswordRequest(token, password)),
  });

  useEffect(() => {
    if (phase.name !== "done") return;
    const timer = setTimeout(() => setLocation("/login"), RESET_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [phase.name, setLocation]);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const found = validateResetPassword(values);
    setErrors(found);
    if (Object.keys(found).length > 0 || !token) return;
    setFailure(null);
    resetPassword(
      { token, password: values.password },
      {
        onSuccess: (data) => setDoneMessage(data.message),
        onError: (error) => setFailure(readErrorMessage(error) ?? "Failed to reset password. Please try again."),
      },
    );
  }

  if (phase.name === "verifying") {
    return (
      <div className="flex items-center justify-center gap-3 py-6 text-slate-600" role="status">
        <Spinner className="h-5 w-5 text-indigo-600" />
        <span>Verifying reset token...</span>
      </div>
    );
  }
  if (phase.name === "invalid") {
    return (
      <div className="space-y-5">
        <Alert title={phase.message}>This reset link is invalid or has expired. Reset links work once and only for one hour.</Alert>
        <Link href="/forgot-password" className="block text-center text-sm font-medium text-indigo-600 hover:text-indigo-500">
          Request a new reset link
        </Link>
      </div>
    );
  }
  if (phase.name === "done") {
    return (
      <div className="space-y-5">
        <Alert tone="success" title="Password reset">
          {phase.message} Redirecting you to the login page in 3 seconds...
        </Alert>
        <Link href="/login" className="block text-center text-sm font-medium text-indigo-600 hover:text-indigo-500">
          Go to login
        </Link>
      </div>
    );
  }
  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5">
      {failure ? <Alert>{failure}</Alert> : null}
      <Field
        label="New Password"
        name="password"
        type="password"
        autoComplete="new-password"
        value={values.password}
        onChange={(e) => setValues((v) => ({ ...v, password: e.target.value }))}
        error={errors.password}
      />
      <Field
        label="Confirm Password"
        name="confirmPassword"
        type="password"
        autoComplete="new-password"
        value={values.confirmPassword}
        onChange={(e) => setValues((v) => ({ ...v, confirmPassword: e.target.value }))}
        error={errors.confirmPassword}
      />
      <Button type="submit" className="w-full" disabled={busy}>
        {busy ? "Resetting..." : "Reset password"}
      </Button>
    </form>
  );
}
