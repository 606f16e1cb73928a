import { useState } from "react";
import { Alert } from "../../../components/ui/alert";
import { Badge, Card } from "../../../components/ui/card";
import { Button } from "../../../components/ui/button";
import { askConfirmation } from "../../../components/ui/confirm-dialog";
import { copyText } from "../../../components/ui/copy-text";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { useWebhooks } from "../api/get-webhooks";
import { useDeleteWebhook, useTestWebhook } from "../api/webhook-mutations";
import type { Webhook } from "../api/webhooks-api";
import { describeDelivery } from "../utils/webhook-display";
import { WebhookDeliveryLog } from "./webhook-delivery-log";
import { WebhookForm } from "./webhook-form";

/** Settings → Notifications: webhooks and Slack, with each one's last delivery, log and Send test. */
export function WebhooksCard() {
  const query = useWebhooks();
  const webhooks = query.data ?? null;
  // A failed read says so above the list as last loaded.
  const loadError = query.isError;
  const [secret, setSecret] = useState<{ url: string; value: string } | null>(null);

  return (
    <Card className="divide-y divide-slate-100" aria-labelledby="webhooks-title">
      <div className="px-6 py-4">
        <h2 id="webhooks-title" className="text-lg font-semibold text-slate-900">
          Webhooks and Slack
        </h2>
        <p className="text-sm text-slate-600">
          DBVault POSTs each chosen event to your URL, signed with <code>X-DBVault-Signature</code>, and retries failed deliveries for 24 hours.
        </p>
      </div>
      {secret ? (
        <div className="px-6 py-4">
          <Alert tone="success" title="Webhook added. Its signing secret is shown only now:">
            <p className="break-all font-mono" data-testid="webhook-secret">
              {secret.value}
            </p>
            <p className="mt-1">Check each delivery's X-DBVault-Signature (sha256=HMAC of the raw body) with it.</p>
            <Button size="sm" variant="outline" className="mt-2" onClick={() => void copyText(secret.value)}>
              Copy secret
            </Button>
          </Alert>
        </div>
      ) : null}
      {loadError ? (
        <div className="px-6 py-4">
          <Alert>Could not load your webhooks. Reload the page to try again.</Alert>
        </div>
      ) : null}
      {webhooks?.map((webhook) => (
        <WebhookRow key={webhook.id} webhook={webhook} />
      ))}
      {webhooks?.length === 0 ? <p className="px-6 py-4 text-sm text-slate-500">No webhooks yet.</p> : null}
      <WebhookForm onCreated={(webhook, value) => setSecret({ url: webhook.url, value })} />
    </Card>
  );
}

function WebhookRow({ webhook }: { webhook: Webhook }) {
  const test = useTestWebhook();
  const removal = useDeleteWebhook();
  const busy = test.isPending ? "test" : removal.isPending ? "delete" : null;
  const [showLog, setShowLog] = useState(false);

  const sendTest = () =>
    test.mutate(webhook.id, {
      onSuccess: (data) => {
        if (data.status === "delivered") toast({ title: "Test delivered.", description: describeDelivery(data), variant: "success" });
        else toast({ title: "The test delivery failed.", description: describeDelivery(data), variant: "destructive" });
      },
      onError: (error) =>
        toast({ title: "Failed to send the test. Please try again.", description: readErrorMessage(error) ?? undefined, variant: "destructive" }),
    });

  const remove = async () => {
    const confirmed = await askConfirmation({
      title: "Delete this webhook?",
      message: `${webhook.url} will receive no more events, and its delivery log is deleted.`,
      confirmLabel: "Delete",
      variant: "destructive",
    });
    if (!confirmed) return;
    removal.mutate(webhook.id, {
      onError: (error) =>
        toast({ title: "Failed to delete the webhook. Please try again.", description: readErrorMessage(error) ?? undefined, variant: "destructive" }),
    });
  };

  const last = webhook.lastDelivery;
  return (
    <section className="space-y-2 px-6 py-4" aria-label={`Webhook ${webhook.url}`}>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="min-w-0">
          <p className="truncate font-mono text-sm text-slate-900" title={webhook.url}>
            {webhook.url}
          </p>
          <p className="text-xs text-slate-500">
            <Badge className="mr-2 bg-slate-100 text-slate-700">{webhook.format === "slack" ? "Slack" : "JSON"}</Badge>
            {webhook.events.join(", ")}
          </p>
          <p className="text-sm text-slate-600" data-testid="webhook-last-delivery">
            {last ? `Last delivery: ${last.event} · ${describeDelivery(last)}` : "No deliveries yet."}
          </p>
        </div>
        <div className="flex gap-2">
          <Button size="sm" variant="outline" onClick={sendTest} disabled={busy !== null}>
            {busy === "test" ? "Sending..." : "Send Test"}
          </Button>
          <Button size="sm" variant="outline" onClick={() => setShowLog((v) => !v)} aria-expanded={showLog}>
            {showLog ? "Hide Log" : "Delivery Log"}
          </Button>
          <Button size="sm" variant="destructive" onClick={remove} disabled={busy !== null}>
            Delete
          </Button>
        </div>
      </div>
      {showLog ? <WebhookDeliveryLog webhookId={webhook.id} /> : null}
    </section>
  );
}
