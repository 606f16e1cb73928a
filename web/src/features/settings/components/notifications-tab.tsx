import { type FormEvent, useState } from "react";
import { Button } from "../../../components/ui/button";
import { Card } from "../../../components/ui/card";
import { Field } from "../../../components/ui/field";
import { Switch } from "../../../components/ui/switch";
import { createRetractableToast, toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { type NotificationChoices, saveSettingsRequest, sendTestNotificationRequest, type UserSettings } from "../api/settings-api";
import { useTimedFlag } from "../hooks/use-timed-flag";
import { WebhooksCard } from "./webhooks-card";

const SAVED_INDICATOR_MS = 3_000;

const TOGGLES: { key: keyof NotificationChoices; label: string; text: string }[] = [
  { key: "backupSuccess", label: "Backup Success", text: "An e-mail when a backup completes." },
  { key: "backupFailure", label: "Backup Failure", text: "An e-mail when a backup fails." },
  { key: "agentDisconnection", label: "Agent Disconnection", text: "An e-mail when an agent goes offline." },
];

type NotificationsTabProps = { settings: UserSettings; accountEmail: string; onSaved: (settings: UserSettings) => void };

/** Notification toggles, the address they go to, a test e-mail, 'Save All Changes'; then webhooks and Slack. */
export function NotificationsTab({ settings, accountEmail, onSaved }: NotificationsTabProps) {
  const [choices, setChoices] = useState<NotificationChoices>(settings.notifications);
  const [email, setEmail] = useState(settings.notificationEmail ?? "");
  const [busy, setBusy] = useState<"save" | "email" | "test" | null>(null);
  const [saved, showSaved] = useTimedFlag(SAVED_INDICATOR_MS);
  const [emailSaved, showEmailSaved] = useTimedFlag(SAVED_INDICATOR_MS);
  const [failure] = useState(createRetractableToast);

  const save = async (changes: Parameters<typeof saveSettingsRequest>[0], kind: "save" | "email") => {
    setBusy(kind);
    try {
      const { data, error } = await saveSettingsRequest(changes);
      if (error || !data) throw error ?? new Error("save failed");
      onSaved(data);
      failure.retract();
      // 'Update' saves the address only: toggles changed but not yet saved stay as the user set them.
      if (kind === "save") setChoices(data.notifications);
      setEmail(data.notificationEmail ?? "");
      (kind === "save" ? showSaved : showEmailSaved)();
    } catch (error) {
      failure.show({ title: "Failed to save settings. Please try again.", description: readErrorMessage(error) ?? undefined, variant: "destructive" });
    } finally {
      setBusy(null);
    }
  };

  const sendTest = async () => {
    setBusy("test");
    try {
      const { error } = await sendTestNotificationRequest();
      if (error) throw error;
      toast({ title: "Test notification sent successfully. Please check your email.", variant: "success" });
    } catch (error) {
      toast({ title: "Failed to send test notification. Please try again.", description: readErrorMessage(error) ?? undefined, variant: "destructive" });
    } finally {
      setBusy(null);
    }
  };

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
