import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link, useLocation, useSearch } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Field } from "../../../components/ui/field";
import { answerOf, readErrorMessage } from "../../../lib/api-client";
import { registerRequest } from "../api/auth-api";
import { startSession } from "../../../lib/auth/session";
import { readNextPath } from "../../../lib/next-path";
import { rememberDeviceToken } from "../utils/device-tokens";
import { writeRegistrationInfo } from "../../../lib/auth/auth-storage";
import { type FieldErrors, validateRegistration } from "../utils/validation";

type Fields = "name" | "email" | "password" | "confirmPassword";

export function RegisterForm() {
  const [, setLocation] = useLocation();
  const search = useSearch();
  const next = readNextPath(search);
  // The invitation page passes the invited address, the one the account must have to accept.
  const [values, setValues] = useState(() => ({ name: "", email: new URLSearchParams(search).get("email") ?? "", password: "", confirmPassword: "" }));
  const [errors, setErrors] = useState<FieldErrors<Fields>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const { mutate: register, isPending: busy } = useMutation({
    mutationFn: (input: Parameters<typeof registerRequest>[0]) => answerOf(registerRequest(input)),
  });
  const bind = (field: Fields) => ({
    name: field,
    value: values[field],
    error: errors[field],
    onChange: (event: React.ChangeEvent<HTMLInputElement>) => setValues((v) => ({ ...v, [field]: event.target.value })),
  });

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const found = validateRegistration(values);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setFailure(null);
    register(
      { name: values.name.trim(), email: values.email.trim(), password: values.password },
      {
        onSuccess: (data) => {
          rememberDeviceToken(data.user.email, data.deviceToken);
          startSession(data.token, data.user);
          writeRegistrationInfo({ id: data.user.id, email: data.user.email, name: data.user.name });
          setLocation(next ?? "/dashboard");
        },
        onError: (error) => setFailure(readErrorMessage(error) ?? "Registration failed"),
      },
    );
  }

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5">
      {failure ? <Alert>{failure}</Alert> : null}
      <Field label="Full name" autoComplete="name" {...bind("name")} />
      <Field label="Email address" type="email" autoComplete="email" {...bind("email")} />
      <Field label="Password" type="password" autoComplete="new-password" {...bind("password")} />
      <Field label="Confirm password" type="password" autoComplete="new-password" {...bind("confirmPassword")} />
      <p className="text-xs text-slate-500">
        By creating an account you agree to our{" "}
        <Link href="/terms" className="font-medium text-indigo-600 hover:text-indigo-500">
          Terms of Service
        </Link>{" "}
        and{" "}
        <Link href="/privacy" className="font-medium text-indigo-600 hover:text-indigo-500">
          Privacy Policy
        </Link>
        , and confirm you are at least 13 years old.
      </p>
      <Button type="submit" className="w-full" disabled={busy}>
        {busy ? "Creating account..." : "Create account"}
      </Button>
    </form>
  );
}
