// Adding, testing and deleting webhooks; each reloads the webhooks and their open delivery logs.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { answerOf } from "../../../lib/api-client";
import { webhooksQueryKey } from "./get-webhooks";
import { createWebhookRequest, deleteWebhookRequest, testWebhookRequest } from "./webhooks-api";

function useReloadWebhooks() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: webhooksQueryKey });
}

/** The answer carries the signing secret, shown once. */
export function useCreateWebhook() {
  const reload = useReloadWebhooks();
  return useMutation({ mutationFn: (body: Parameters<typeof createWebhookRequest>[0]) => answerOf(createWebhookRequest(body)), onSuccess: reload });
}

/** A test delivery, now; its result is in the answer and in the delivery log. */
export function useTestWebhook() {
  const reload = useReloadWebhooks();
  return useMutation({ mutationFn: (webhookId: string) => answerOf(testWebhookRequest(webhookId)), onSuccess: reload });
}

/** The list is read again even after a failure: the webhook may be gone already. */
export function useDeleteWebhook() {
  const reload = useReloadWebhooks();
  return useMutation({ mutationFn: (webhookId: string) => answerOf(deleteWebhookRequest(webhookId)), onSettled: reload });
}
