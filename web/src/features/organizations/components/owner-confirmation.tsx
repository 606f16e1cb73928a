import { type ReactNode, useState } from "react";
import { type Credentials, ReauthenticationDialog } from "../../../components/auth/reauthentication-dialog";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage, readErrorStatus } from "../../../lib/api-client";
import { useSession } from "../../../lib/auth/use-session";

type Asked = {
  title: string;
  message: string;
  confirmLabel: string;
  /** The change itself, with what the dialog collected. */
  run: (credentials: Credentials) => Promise<{ message: string }>;
  fallback: string;
};

/**
 * Making, demoting or removing an owner, and transferring the team, need the owner's password (and
 * code, or "Confirm with SSO") as well as the session (issue 41). `confirmOwnerChange` opens the
 * dialog; the change is made with what it collects, and a wrong password is said in the dialog.
 */
export function useOwnerConfirmation(): { confirmOwnerChange: (asked: Asked) => void; ownerDialog: ReactNode } {
  const { user } = useSession();
  const [asked, setAsked] = useState<Asked | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const confirm = async (credentials: Credentials) => {
    if (!asked) return;
    setProblem(null);
    setBusy(true);
    try {
      const answer = await asked.run(credentials);
      setAsked(null);
      toast({ title: answer.message, variant: "success" });
    } catch (error) {
      const status = readErrorStatus(error);
      const message = readErrorMessage(error) ?? asked.fallback;
      if (status === 400 || status === 403 || status === 429) setProblem(message);
      else {
        setAsked(null);
        toast({ title: message, variant: "destructive" });
      }
    } finally {
      setBusy(false);
    }
  };

  const ownerDialog = asked ? (
    <ReauthenticationDialog
      open
      title={asked.title}
      message={asked.message}
      confirmLabel={asked.confirmLabel}
      twoFactor={user?.twoFactorEnabled ?? false}
      busy={busy}
      problem={problem}
      onCancel={() => setAsked(null)}
      onConfirm={(credentials) => void confirm(credentials)}
    />
  ) : null;
  return {
    confirmOwnerChange: (next) => {
      setProblem(null);
      setAsked(next);
    },
    ownerDialog,
  };
}
