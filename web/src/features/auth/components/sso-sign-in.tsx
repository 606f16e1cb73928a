import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { Link, useLocation } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { Button, buttonClasses } from "../../../components/ui/button";
import { Field } from "../../../components/ui/field";
import { answerOf, readErrorMessage } from "../../../lib/api-client";
import { startSession } from "../../../lib/auth/session";
import { sessionAtom, sessionStore } from "../../../lib/auth/session-store";
import { finishSsoReauthentication } from "../../../lib/auth/sso-reauthentication";
import { chooseOrganization } from "../../../lib/organization/chosen-organization";
import { exchangeSsoCodeRequest, startSsoRequest } from "../api/auth-api";
import { rememberDeviceToken } from "../utils/device-tokens";
import { validateForgotPassword } from "../utils/validation";

/** What the server's callback put in this page's fragment: a one-time code, or why it refused. */
function readReturn(): { code: string | null; error: string | null; reauthentication: string | null } {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  return { code: fragment.get("code"), error: fragment.get("error"), reauthentication: fragment.get("reauthentication") };
}

const currentSession = () => sessionStore.get(sessionAtom);

/**
 * "Sign in with SSO" (/sso): asks the work e-mail and sends the browser to the organization's
 * provider; back from it, exchanges the one-time code for a session. The code comes in the
 * fragment (never sent to a server) and is wiped from the address at once.
 */
export function SsoSignIn() {
  const [, setLocation] = useLocation();
  const [returned] = useState(readReturn);
  const [email, setEmail] = useState("");
  const [emailError, setEmailError] = useState<string | undefined>();
  const [failure, setFailure] = useState<string | null>(returned.error);
  const start = useMutation({ mutationFn: (address: string) => answerOf(startSsoRequest(address)) });
  const exchange = useMutation({ mutationFn: (code: string) => answerOf(exchangeSsoCodeRequest(code)) });
  const exchanged = useRef(false);
  // A code arriving while someone is signed in may be another person's (a link sent to them):
  // the session is replaced only when they say so.
  const [askReplace, setAskReplace] = useState(() => Boolean(returned.code && currentSession()));

  function exchangeCode(code: string) {
    exchanged.current = true;
    exchange.mutate(code, {
      onSuccess: (data) => {
        rememberDeviceToken(data.user.email, data.deviceToken);
        startSession(data.token, data.user);
        // The session opens in the organization whose provider signed the user in.
        chooseOrganization(data.organizationId);
        setLocation(data.user.isBanned ? "/banned" : "/dashboard");
      },
      onError: (error) => setFailure(readErrorMessage(error) ?? "Signing in with SSO failed. Please try again."),
    });
  }

  useEffect(() => {
    if (window.location.hash) window.history.replaceState(null, "", window.location.pathname);
    if (exchanged.current) return;
    if (returned.reauthentication) {
      // Back from "Confirm with SSO": the signed-in session's token is stamped, then back to where it was asked.
      exchanged.current = true;
      const signedIn = currentSession();
      finishSsoReauthentication(returned.reauthentication).then(
        ({ token, back }) => {
          if (signedIn) startSession(token, signedIn.user);
          setLocation(back);
        },
        (error) => setFailure(readErrorMessage(error) ?? "Confirming with SSO failed. Please try again."),
      );
      return;
    }
    if (!returned.code || askReplace) return;
    exchangeCode(returned.code);
  }, []);

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const found = validateForgotPassword({ email }).email;
    setEmailError(found);
    if (found) return;
    setFailure(null);
    start.mutate(email.trim(), {
      onSuccess: (data) => window.location.assign(data.url),
      onError: (error) => setFailure(readErrorMessage(error) ?? "Could not start signing in with SSO. Please try again."),
    });
  }

  if (returned.reauthentication && !failure) return <p className="text-center text-sm text-slate-600">Confirming it is you...</p>;
  if (returned.code && askReplace && !failure) {
    const signedIn = currentSession();
    return (
      <div className="space-y-4">
        <p className="text-sm text-slate-700">
          You are signed in as {signedIn?.user.email}. Continuing signs you out and signs you in with the account your organization's provider confirmed. If you
          did not just sign in with SSO yourself, stay signed in: someone may have sent you this link.
        </p>
        <Button
          className="w-full"
          onClick={() => {
            setAskReplace(false);
            exchangeCode(returned.code!);
          }}
        >
          Sign in with SSO instead
        </Button>
        <Link href="/dashboard" className={buttonClasses({ variant: "outline", className: "w-full" })}>
          Stay signed in as {signedIn?.user.email}
        </Link>
      </div>
    );
  }
  if (returned.code && !failure) return <p className="text-center text-sm text-slate-600">Signing you in...</p>;

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5">
      {failure ? <Alert>{failure}</Alert> : null}
      <Field
        label="Work email address"
        name="email"
        type="email"
        autoComplete="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={emailError}
        hint="You will sign in with your organization's sign-in provider."
      />
      <Button type="submit" className="w-full" disabled={start.isPending}>
        {start.isPending ? "Redirecting..." : "Continue with SSO"}
      </Button>
      <Link href="/login" className={buttonClasses({ variant: "outline", className: "w-full" })}>
        Sign in with a password
      </Link>
    </form>
  );
}
