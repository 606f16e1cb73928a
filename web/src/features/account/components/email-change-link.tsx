import { useState } from "react";
import { Link } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { readErrorMessage } from "../../../lib/api-client";
import { confirmEmailChangeRequest, undoEmailChangeRequest } from "../api/account-api";

export type EmailChangeAction = "confirm" | "undo";

const TEXTS: Record<EmailChangeAction, { intro: string; button: string }> = {
  confirm: { intro: "Confirm that this address should be the e-mail of your DBVault account.", button: "Confirm my new e-mail" },
  undo: {
    intro: "If you did not ask to change your DBVault e-mail, undo it: your old e-mail comes back and every session is signed out.",
    button: "Undo the e-mail change",
  },
};

/**
 * The page a mailed e-mail change link opens. It acts on a click, not on opening: mail scanners
 * that open links must not confirm or undo anything.
 */
export function EmailChangeLink({ action, token }: { action: EmailChangeAction; token: string }) {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string } | null>(null);

  const act = async () => {
    setBusy(true);
    const { data, error } = await (action === "confirm" ? confirmEmailChangeRequest(token) : undoEmailChangeRequest(token));
    setBusy(false);
    if (data) setOutcome({ ok: true, message: data.message });
    else setOutcome({ ok: false, message: readErrorMessage(error) ?? "This link could not be used. Please try again." });
  };

  if (outcome) {
    return (
      <div className="space-y-4">
        <Alert tone={outcome.ok ? "success" : "error"}>{outcome.message}</Alert>
        <Link href="/login" className="block text-center text-sm font-medium text-indigo-600 hover:text-indigo-500">
          Go to login
        </Link>
      </div>
    );
  }
  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-700">{TEXTS[action].intro}</p>
      <Button className="w-full" variant={action === "undo" ? "destructive" : "default"} onClick={act} disabled={busy}>
        {busy ? "Working..." : TEXTS[action].button}
      </Button>
    </div>
  );
}
