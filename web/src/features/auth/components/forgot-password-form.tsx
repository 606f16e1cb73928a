import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Link } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Field } from "../../../components/ui/field";
import { answerOf, readErrorMessage } from "../../../lib/api-client";
import { forgotPasswordRequest } from "../api/auth-api";
import { validateForgotPassword } from "../utils/validation";

const FALLBACK_MESSAGE = "If an account with that email exists, a password reset link has been sent.";

export function ForgotPasswordForm() {
  const [email, setEmail] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [failure, setFailure] = useState<string | null>(null);
  const [sentMessage, setSentMessage] = useState<string | null>(null);
  const { mutate: sendLink, isPending: busy } = useMutation({ mutationFn: (address: string) => answerOf(forgotPasswordRequest(address)) });

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const found = validateForgotPassword({ email });
    setError(found.email);
    if (found.email) return;
    setFailure(null);
    sendLink(email.trim(), {
      onSuccess: (data) => setSentMessage(data.message || FALLBACK_MESSAGE),
      onError: (answer) => setFailure(readErrorMessage(answer) ?? "Failed to send reset link. Please try again."),
    });
  }

  const backToLogin = (
    <Link href="/login" className="text-sm font-medium text-indigo-600 hover:text-indigo-500">
      Back to login
    </Link>
  );

  if (sentMessage) {
    return (
      <div className="space-y-5">
        <Alert tone="success" title="Check your email">
          {sentMessage}
        </Alert>
        <Button
          variant="outline"
          className="w-full"
          onClick={() => {
            setSentMessage(null);
            setEmail("");
          }}
        >
          Try another email
        </Button>
        <div className="text-center">{backToLogin}</div>
      </div>
    );
  }

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5">
      {failure ? <Alert>{failure}</Alert> : null}
      <Field label="Email address" name="email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={error} />
      <Button type="submit" className="w-full" disabled={busy}>
        {busy ? "Sending..." : "Send reset link"}
      </Button>
      <div className="text-center">{backToLogin}</div>
    </form>
  );
}
