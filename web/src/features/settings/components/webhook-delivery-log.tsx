import { useEffect, useState } from "react";
import { Alert } from "../../../components/ui/alert";
import { formatDateTime } from "../../../lib/format-date";
import { type WebhookDelivery, webhookDeliveriesRequest } from "../api/webhooks-api";
import { describeDelivery } from "../utils/webhook-display";

/** A webhook's latest deliveries, newest first, with every attempt's time and answer. */
export function WebhookDeliveryLog({ webhookId, version }: { webhookId: string; version: number }) {
  const [deliveries, setDeliveries] = useState<WebhookDelivery[] | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let current = true;
    void webhookDeliveriesRequest(webhookId).then(({ data, error }) => {
      if (!current) return;
      if (error || !data) return setFailed(true);
      setDeliveries(data);
    });
    return () => {
      current = false;
    };
  }, [webhookId, version]);

  if (failed) return <Alert>Could not load the delivery log. Try again.</Alert>;
  if (!deliveries) return <p className="text-sm text-slate-500">Loading the delivery log…</p>;
  if (deliveries.length === 0) return <p className="text-sm text-slate-500">Nothing delivered yet. Send a test to try it.</p>;
  return (
    <table className="w-full text-left text-sm" aria-label="Delivery log">
      <thead className="text-xs uppercase text-slate-500">
        <tr>
          <th className="py-1 pr-3 font-medium">Event</th>
          <th className="py-1 pr-3 font-medium">Outcome</th>
          <th className="py-1 font-medium">Attempts</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100 align-top">
        {deliveries.map((delivery) => (
          <tr key={delivery.id}>
            <td className="py-2 pr-3 font-mono text-xs">{delivery.event}</td>
            <td className="py-2 pr-3">{describeDelivery(delivery)}</td>
            <td className="py-2">
              <ol className="space-y-0.5 text-xs text-slate-600">
                {delivery.log.map((attempt) => (
                  <li key={attempt.attemptedAt}>
                    {formatDateTime(attempt.attemptedAt)}: {attempt.statusCode !== null ? `HTTP ${attempt.statusCode}` : (attempt.error ?? "no answer")} (
                    {attempt.durationMs} ms)
                  </li>
                ))}
              </ol>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
