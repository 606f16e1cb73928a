import { useState } from "react";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Card } from "../../../components/ui/card";
import { toast } from "../../../components/ui/toast-store";
import { type Credentials, ReauthenticationDialog } from "../../../components/auth/reauthentication-dialog";
import { readErrorMessage, readErrorStatus } from "../../../lib/api-client";
import { useSession } from "../../../lib/auth/use-session";
import { formatDateTime } from "../../../lib/format-date";
import { useBackupProtection, useCancelProtectionOff, useProtectBackups, useRequestProtectionOff } from "../api/get-backup-protection";

type Asking = "on" | "off" | null;

const DIALOG = {
  on: {
    title: "Protect backups",
    message:
      "Once on, nobody (you, anyone holding your session, an administrator) can delete a backup before its retention lets it go, shorten retention or delete the account. Turning it off later takes 7 days.",
    confirmLabel: "Protect backups",
  },
  off: {
    title: "Turn Protect backups off",
    message:
      "It stays in force for 7 more days, and you can cancel until then. You will get an e-mail now, and your webhooks the backup_protection.off_requested event.",
    confirmLabel: "Turn off in 7 days",
  },
} as const;

/** Settings → Security: the account's backup compliance policy (server: modules/backup-protection). */
export function BackupProtectionCard() {
  const { user } = useSession();
  const protection = useBackupProtection().data ?? null;
  const turnOn = useProtectBackups();
  const turnOff = useRequestProtectionOff();
  const cancel = useCancelProtectionOff();
  const [asking, setAsking] = useState<Asking>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const twoFactor = user?.twoFactorEnabled ?? false;
  const change = asking === "off" ? turnOff : turnOn;

  const confirm = (credentials: Credentials) => {
    setProblem(null);
    change.mutate(credentials, {
      onSuccess: (answer) => {
        setAsking(null);
        toast({ title: answer.message, variant: "success" });
      },
      onError: (error) => {
        // A wrong password or code is said in the dialog, to be typed again; anything else closes it.
        const status = readErrorStatus(error);
        const message = readErrorMessage(error) ?? "Could not change Protect backups. Please try again.";
        if (status === 400 || status === 403 || status === 429) setProblem(message);
        else {
          setAsking(null);
          toast({ title: message, variant: "destructive" });
        }
      },
    });
  };
  const cancelTurnOff = () =>
    cancel.mutate(undefined, {
      onSuccess: (answer) => toast({ title: answer.message, variant: "success" }),
      onError: (error) => toast({ title: readErrorMessage(error) ?? "Could not cancel. Please try again.", variant: "destructive" }),
    });
  const ask = (what: Asking) => {
    setProblem(null);
    setAsking(what);
  };

  return (
    <Card className="p-6" role="region" aria-labelledby="backup-protection-heading">
      <h2 id="backup-protection-heading" className="text-lg font-semibold text-slate-900">
        Protect backups
      </h2>
      {protection === null ? (
        <p className="mt-2 text-sm text-slate-500">Loading...</p>
      ) : (
        <div className="mt-2 space-y-3">
          {protection.state === "off" ? (
            <>
              <p className="text-sm text-slate-700" data-testid="backup-protection-status">
                Off. When on, no backup can be deleted before its retention lets it go, even with your password or by an administrator.
              </p>
              {twoFactor ? null : <Alert>Turn two-factor sign-in on first (Profile → Security): Protect backups needs it.</Alert>}
              <Button onClick={() => ask("on")} disabled={!twoFactor || turnOn.isPending}>
                Protect backups
              </Button>
            </>
          ) : protection.state === "on" ? (
            <>
              <p className="text-sm text-slate-700" data-testid="backup-protection-status">
                On since {formatDateTime(protection.enabledAt)}. Backups are kept until their retention lets them go; retention cannot be shortened.
              </p>
              <Button variant="outline" onClick={() => ask("off")} disabled={turnOff.isPending}>
                Turn off…
              </Button>
            </>
          ) : (
            <>
              <p className="text-sm text-slate-700" data-testid="backup-protection-status">
                Turning off on {formatDateTime(protection.offAt)}. Until then your backups stay protected.
              </p>
              <Button onClick={cancelTurnOff} disabled={cancel.isPending}>
                Cancel turning off
              </Button>
            </>
          )}
        </div>
      )}
      {asking ? (
        <ReauthenticationDialog
          open
          {...DIALOG[asking]}
          twoFactor={twoFactor}
          busy={change.isPending}
          problem={problem}
          onCancel={() => setAsking(null)}
          onConfirm={confirm}
        />
      ) : null}
    </Card>
  );
}
