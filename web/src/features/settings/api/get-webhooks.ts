// Settings → Notifications: the user's webhooks and each one's delivery log. Both keys start with
// "webhooks", so a change (added, tested, deleted) refreshes the list and the open logs at once.
import { useQuery } from "@tanstack/react-query";
import { answerOf } from "../../../lib/api-client";
import { listWebhooksRequest, webhookDeliveriesRequest } from "./webhooks-api";

export const webhooksQueryKey = ["webhooks"] as const;

export function useWebhooks() {
  return useQuery({ queryKey: webhooksQueryKey, queryFn: () => answerOf(listWebhooksRequest()) });
}

export function useWebhookDeliveries(webhookId: string) {
  return useQuery({ queryKey: [...webhooksQueryKey, webhookId, "deliveries"], queryFn: () => answerOf(webhookDeliveriesRequest(webhookId)) });
}
