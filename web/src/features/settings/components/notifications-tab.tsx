import { type FormEvent, useState } from "react";
import { Button } from "../../../components/ui/button";
import { Card } from "../../../components/ui/card";
import { Field } from "../../../components/ui/field";
import { Switch } from "../../../components/ui/switch";
import { createRetractableToast, toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import type { NotificationChoices, SettingsChanges, UserSettings } from "../api/settings-api";
import { useSaveSettings, useSendTestNotification } from "../api/settings-mutations";
import { useTimedFlag } from "../hooks/use-timed-flag";
import { WebhooksCard } from "./webhooks-card";

const SAVED_INDICATOR_MS = 3_000;

const TOGGLES: { key: keyof NotificationChoices; label: string; text: string }[] = [
  { key: "backupSuccess", label: "Backup Success", text: "An e-mail when a backup completes." },
  { key: "backupFailure", label: "Backup Failure", text: "An e-mail when a backup fails." },
  { key: "agentDisconnection", label: "Agent Disconnection", text: "An e-mail when an agent goes offline." },
];

type NotificationsTabProps = { settings: UserSettings; accountEmail: string };

/** Notification toggles, the address they go to, a test e-mail, 'Save All Changes'; then webhooks and Slack. */
export function NotificationsTab({ settings, accountEmail }: NotificationsTabProps) {
  const [choices, setChoices] = useState<NotificationChoices>(settings.notifications);
  const [email, setEmail] = useState(settings.notificationEmail ?? "");
  // 'Save All Changes' and 'Update' (the address only) are separate saves, each with its own label.
  const saveAll = useSaveSettings();
  const saveEmail = useSaveSettings();
  const test = useSendTestNotification();
  const busy = saveAll.isPending ? "save" : saveEmail.isPending ? "email" : test.isPending ? "test" : null;
  const [saved, showSaved] = useTimedFlag(SAVED_INDICATOR_MS);
  const [emailSaved, showEmailSaved] = useTimedFlag(SAVED_INDICATOR_MS);
  const [failure] = useState(createRetractableToast);

  const save = (changes: SettingsChanges, kind: "save" | "email") =>
    (kind === "save" ? saveAll : saveEmail).mutate(changes, {
      onSuccess: (data: UserSettings) => {
        failure.retract();
        // 'Update' saves the address only: toggles changed but not yet saved stay as the user set them.
        if (kind === "save") setChoices(data.notifications);
        setEmail(data.notificationEmail ?? "");
        (kind === "save" ? showSaved : showEmailSaved)();
      },
      onError: (error) =>
        failure.show({ title: "Failed to save settings. Please try again.", description: readErrorMessage(error) ?? undefined, variant: "destructive" }),
    });

  const sendTest = () =>
    test.mutate(undefined, {
      onSuccess: () => toast({ title: "Test notification sent successfully. Please check your email.", variant: "success" }),
      onError: (error) =>
        toast({ title: "Failed to send test notification. Please try again.", description: readErrorMessage(error) ?? undefined, variant: "destructive" }),
    });

  const onUpdateEmail = (event: FormEvent) => {
    event.preventDefault();
    void save({ notificationEmail: email.trim() }, "email");
  };

  return (
    <div className="max-w-2xl space-y-6">
      <Card className="divide-y divide-slate-100">
        {TOGGLES.map((toggle) => (
          <div key={toggle.key} className="flex items-center justify-between gap-4 px-6 py-4">
            <div>
              <p className="font-medium text-slate-900">{toggle.label}</p>
              <p className="text-sm text-slate-600">{toggle.text}</p>
            </div>
            <Switch checked={choices[toggle.key]} label={toggle.label} onCheckedChange={(checked) => setChoices((c) => ({ ...c, [toggle.key]: checked }))} />
          </div>
        ))}
      </Card>

      <form onSubmit={onUpdateEmail} noValidate className="flex flex-wrap items-end gap-3">
        <Field
          className="min-w-64 flex-1"
          label="Notification email"
          type="email"
          value={email}
          placeholder={accountEmail}
          hint={`Leave empty to use your account address (${accountEmail}).`}
          onChange={(e) => setEmail(e.target.value)}
        />
        <Button type="submit" variant={emailSaved ? "success" : "outline"} disabled={busy !== null}>
          <span aria-live="polite">{emailSaved ? "Updated!" : "Update"}</span>
        </Button>
      </form>

      <div className="flex flex-wrap gap-3">
        <Button variant="outline" onClick={sendTest} disabled={busy !== null}>
          {busy === "test" ? "Sending..." : "Send Test Notification"}
        </Button>
        <Button
          variant={saved ? "success" : "default"}
          disabled={busy !== null}
          onClick={() => save({ notifications: choices, notificationEmail: email.trim() }, "save")}
        >
          <span aria-live="polite">{saved ? "Saved!" : busy === "save" ? "Saving..." : "Save All Changes"}</span>
        </Button>
      </div>

      <WebhooksCard />
    </div>
  );
}
