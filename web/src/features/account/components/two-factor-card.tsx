import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Card } from "../../../components/ui/card";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { formatDate } from "../../../lib/format-date";
import { AuthenticationCodeField } from "../../../components/auth/authentication-code-field";
import { CurrentPasswordField } from "../../../components/auth/current-password-field";
import { usePendingAction } from "../../../lib/api/use-pending-action";
import { useSession } from "../../../lib/auth/use-session";
import { startSession } from "../../../lib/auth/session";
import {
  disableTwoFactorRequest,
  enableTwoFactorRequest,
  newRecoveryCodesRequest,
  startTwoFactorSetupRequest,
  type TwoFactorSetup,
} from "../api/two-factor-api";
import { twoFactorStatusQueryKey, useTwoFactorStatus } from "../api/get-two-factor-status";
import { RecoveryCodesPanel } from "./recovery-codes-panel";

type Step =
  | { kind: "idle" }
  | { kind: "password" }
  | { kind: "scan"; setup: TwoFactorSetup }
  | { kind: "codes"; codes: string[] }
  | { kind: "regenerate" }
  | { kind: "disable" };

/** A form's submit button and Cancel. */
function FormButtons({ label, busy, destructive, onCancel }: { label: string; busy: boolean; destructive?: boolean; onCancel: () => void }) {
  return (
    <div className="flex gap-2">
      <Button type="submit" variant={destructive ? "destructive" : "default"} disabled={busy}>
        {label}
      </Button>
      <Button variant="ghost" onClick={onCancel}>
        Cancel
      </Button>
    </div>
  );
}

/** Answers `data` or throws the API's message. */
async function unwrap<T>(call: Promise<{ data: T | null; error: unknown }>, fallback: string): Promise<T> {
  const { data, error } = await call;
  if (error || data === null) throw new Error(readErrorMessage(error) ?? fallback);
  return data;
}

/** Profile → Security: two-factor sign-in with an authenticator app (TOTP) and recovery codes. */
export function TwoFactorCard() {
  const { user, token } = useSession();
  const [step, setStep] = useState<Step>({ kind: "idle" });
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const { run, busy } = usePendingAction();

  const queryClient = useQueryClient();
  const status = useTwoFactorStatus().data ?? null;
  const reload = () => queryClient.invalidateQueries({ queryKey: twoFactorStatusQueryKey });

  const go = (next: Step) => {
    setStep(next);
    setPassword("");
    setCode("");
    setProblem(null);
  };

  /** Runs one form's call with the busy flag and its error shown in the card. */
  const submit = (action: () => Promise<void>) => async (event: FormEvent) => {
    event.preventDefault();
    setProblem(null);
    try {
      await run(action);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : "Something went wrong");
    }
  };

  const onPassword = submit(async () => {
    const setup = await unwrap(startTwoFactorSetupRequest(password), "Could not start the setup");
    go({ kind: "scan", setup });
  });
  const onEnable = submit(async () => {
    const done = await unwrap(enableTwoFactorRequest(code.trim()), "Could not turn two-factor sign-in on");
    // Other sessions end; this one carries on with the token answered.
    if (user) startSession(done.token, { ...user, twoFactorEnabled: true });
    go({ kind: "codes", codes: done.recoveryCodes });
    await reload();
  });
  const onRegenerate = submit(async () => {
    const fresh = await unwrap(newRecoveryCodesRequest({ password, code: code.trim() }), "Could not make new recovery codes");
    go({ kind: "codes", codes: fresh.recoveryCodes });
    await reload();
  });
  const onDisable = submit(async () => {
    await unwrap(disableTwoFactorRequest({ password, code: code.trim() }), "Could not turn two-factor sign-in off");
    if (user && token) startSession(token, { ...user, twoFactorEnabled: false });
    toast({ title: "Two-factor sign-in is off", variant: "success" });
    go({ kind: "idle" });
    await reload();
  });

  const passwordField = <CurrentPasswordField name="password" value={password} onChange={(e) => setPassword(e.target.value)} required />;
  const codeField = <AuthenticationCodeField value={code} onChange={setCode} />;

  return (
    <Card className="p-6" role="region" aria-labelledby="two-factor-heading">
      <h2 id="two-factor-heading" className="text-lg font-semibold text-slate-900">
        Two-factor sign-in
      </h2>
      {status === null ? (
        <p className="mt-2 text-sm text-slate-500">Loading...</p>
      ) : (
        <div className="mt-2 space-y-4">
          {problem ? <Alert>{problem}</Alert> : null}
          {step.kind === "idle" ? (
            status.enabled ? (
              <>
                <p className="text-sm text-slate-700" data-testid="two-factor-status">
                  On since {formatDate(status.enabledAt ?? Date.now())}. Sign-in asks for a code from your authenticator app. {status.recoveryCodesLeft}{" "}
                  recovery code{status.recoveryCodesLeft === 1 ? "" : "s"} left.
                </p>
                <div className="flex flex-wrap gap-2">
                  <Button variant="outline" onClick={() => go({ kind: "regenerate" })}>
                    New recovery codes
                  </Button>
                  {status.required ? null : (
                    <Button variant="destructive" onClick={() => go({ kind: "disable" })}>
                      Turn off
                    </Button>
                  )}
                </div>
              </>
            ) : (
              <>
                <p className="text-sm text-slate-700" data-testid="two-factor-status">
                  Off. With two-factor sign-in, a stolen password alone cannot open your account: sign-in also asks for a code from an authenticator app on your
                  phone.
                </p>
                {status.required ? <Alert>This server requires administrators to turn two-factor sign-in on.</Alert> : null}
                <Button onClick={() => go({ kind: "password" })}>Turn on two-factor sign-in</Button>
              </>
            )
          ) : null}

          {step.kind === "password" ? (
            <form onSubmit={onPassword} className="space-y-4">
              {passwordField}
              <FormButtons label="Continue" busy={busy} onCancel={() => go({ kind: "idle" })} />
            </form>
          ) : null}

          {step.kind === "scan" ? (
            <form onSubmit={onEnable} className="space-y-4">
              <p className="text-sm text-slate-700">
                Scan this QR code with your authenticator app (Google Authenticator, 1Password, Authy, ...), then enter the code it shows.
              </p>
              <img src={step.setup.qrCode} alt="QR code for your authenticator app" className="h-48 w-48 rounded border border-slate-200" />
              <p className="text-xs text-slate-500">
                Cannot scan it? Enter this key:{" "}
                <code className="break-all font-mono text-slate-800" data-testid="two-factor-secret">
                  {step.setup.secret}
                </code>
              </p>
              {codeField}
              <FormButtons label="Verify and turn on" busy={busy} onCancel={() => go({ kind: "idle" })} />
            </form>
          ) : null}

          {step.kind === "codes" ? <RecoveryCodesPanel codes={step.codes} onDone={() => go({ kind: "idle" })} /> : null}

          {step.kind === "regenerate" ? (
            <form onSubmit={onRegenerate} className="space-y-4">
              <p className="text-sm text-slate-700">New codes replace the old ones, which stop working. Confirm it is you first.</p>
              {passwordField}
              {codeField}
              <FormButtons label="Make new codes" busy={busy} onCancel={() => go({ kind: "idle" })} />
            </form>
          ) : null}

          {step.kind === "disable" ? (
            <form onSubmit={onDisable} className="space-y-4">
              {passwordField}
              {codeField}
              <FormButtons label="Turn off two-factor sign-in" busy={busy} destructive onCancel={() => go({ kind: "idle" })} />
            </form>
          ) : null}
        </div>
      )}
    </Card>
  );
}
