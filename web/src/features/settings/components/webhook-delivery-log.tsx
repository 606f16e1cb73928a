import { Alert } from "../../../components/ui/alert";
import { DataTable, type DataTableColumn } from "../../../components/ui/data-table";
import { formatDateTime } from "../../../lib/format-date";
import { useWebhookDeliveries } from "../api/get-webhooks";
import type { WebhookDelivery } from "../api/webhooks-api";
import { describeDelivery } from "../utils/webhook-display";

/** A webhook's latest deliveries, newest first, with every attempt's time and answer. */
const DELIVERY_COLUMNS: DataTableColumn<WebhookDelivery>[] = [
  { accessorKey: "event", header: "Event", cell: ({ row }) => <span className="font-mono text-xs">{row.original.event}</span> },
  { id: "outcome", header: "Outcome", cell: ({ row }) => describeDelivery(row.original) },
  {
    id: "attempts",
    header: "Attempts",
    cell: ({ row }) => (
      <ol className="space-y-0.5 text-xs text-slate-600">
        {row.original.log.map((attempt) => (
          <li key={attempt.attemptedAt}>
            {formatDateTime(attempt.attemptedAt)}: {attempt.statusCode !== null ? `HTTP ${attempt.statusCode}` : (attempt.error ?? "no answer")} (
            {attempt.durationMs} ms)
          </li>
        ))}
      </ol>
    ),
  },
];

export function WebhookDeliveryLog({ webhookId }: { webhookId: string }) {
  const query = useWebhookDeliveries(webhookId);
  const deliveries = query.data ?? null;

  if (query.isError) return <Alert>Could not load the delivery log. Try again.</Alert>;
  if (!deliveries) return <p className="text-sm text-slate-500">Loading the delivery log…</p>;
  if (deliveries.length === 0) return <p className="text-sm text-slate-500">Nothing delivered yet. Send a test to try it.</p>;
  return (
    <DataTable
      columns={DELIVERY_COLUMNS}
      data={deliveries}
      getRowId={(delivery) => delivery.id}
      label="Delivery log"
      className="rounded-lg border border-slate-200"
    />
  );
}
