import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { answerOf, readErrorMessage } from "../../../lib/api-client";
import { profileQueryKey } from "../../../lib/api/get-profile";
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
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: () => answerOf(action === "confirm" ? confirmEmailChangeRequest(token) : undoEmailChangeRequest(token)),
    // The address may be the signed-in user's: the profile is read again when next shown.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: profileQueryKey }),
  });
  const busy = change.isPending;
  const act = () => change.mutate();
  const outcome = change.isSuccess
    ? { ok: true, message: change.data.message }
    : change.isError
      ? { ok: false, message: readErrorMessage(change.error) ?? "This link could not be used. Please try again." }
      : null;

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
