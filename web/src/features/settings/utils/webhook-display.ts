import { ACCOUNT_EVENTS, AGENT_EVENTS, BACKUP_EVENTS, COPY_EVENTS, PITR_EVENTS, RESTORE_EVENTS, type WebhookEventName } from "@protocol/webhook-events";
import { formatDateTime } from "../../../lib/format-date";

/** The event choices of the webhook form, grouped as the user thinks of them. */
export const EVENT_GROUPS: { title: string; events: readonly WebhookEventName[] }[] = [
  { title: "Backups", events: BACKUP_EVENTS },
  { title: "Restores and drills", events: RESTORE_EVENTS },
  { title: "Agents", events: AGENT_EVENTS },
  { title: "Point-in-time recovery", events: PITR_EVENTS },
  { title: "Copies in your buckets", events: COPY_EVENTS },
  { title: "Account", events: ACCOUNT_EVENTS },
];

/** What the user should do by default: hear about everything that went wrong. */
export const DEFAULT_EVENTS: WebhookEventName[] = [
  "backup.failed",
  "backup.verification_failed",
  "backup.anomaly",
  "restore.failed",
  "drill.failed",
  "agent.offline",
  "pitr.gap",
  "pitr.lag",
  "copy.missing",
  "copy.changed",
  "copy.unreachable",
  "backup_protection.off_requested",
];

type DeliveryLike = {
  status: "pending" | "delivered" | "failed";
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  attempts: number;
};

/** One line for a delivery's state: "Delivered (HTTP 200)", "Failed: …", "Retrying at …". */
export function describeDelivery(delivery: DeliveryLike): string {
  if (delivery.status === "delivered") return `Delivered (HTTP ${delivery.lastStatusCode})`;
  const reason = delivery.lastError ?? "no answer";
  if (delivery.status === "failed") return `Failed: ${reason}`;
  if (delivery.attempts === 0) return "Sending…";
  return `Retrying at ${formatDateTime(delivery.nextAttemptAt)} (${reason})`;
}
