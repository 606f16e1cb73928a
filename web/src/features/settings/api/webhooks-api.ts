import { api } from "../../../lib/api-client";

type NewWebhookBody = Parameters<typeof api.settings.webhooks.post>[0];

export const listWebhooksRequest = () => api.settings.webhooks.get();
export const createWebhookRequest = (body: NewWebhookBody) => api.settings.webhooks.post(body);
export const deleteWebhookRequest = (id: string) => api.settings.webhooks({ id }).delete();
export const testWebhookRequest = (id: string) => api.settings.webhooks({ id }).test.post();
export const webhookDeliveriesRequest = (id: string) => api.settings.webhooks({ id }).deliveries.get();

// Answers as the server types them.
export type Webhook = NonNullable<Awaited<ReturnType<typeof listWebhooksRequest>>["data"]>[number];
export type WebhookDelivery = NonNullable<Awaited<ReturnType<typeof webhookDeliveriesRequest>>["data"]>[number];
export type WebhookFormat = Webhook["format"];
