import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { messageAnswer } from "../../lib/schema";
import { authGuard } from "../auth/guard";
import { actorOf } from "../audit/service";
import { webhookAnswers, webhookModel } from "./model";
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, sendTestDelivery } from "./service";

/** Settings → Notifications: the user's webhooks (JSON or Slack), their delivery log and Send test. */
export const webhooksController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/settings/webhooks", detail: { tags: ["Settings"], security: [{ bearer: [] }] } })
    .use(authGuard(ctx))
    .get("/", ({ organization }) => listWebhooks(ctx, organization.id), {
      auth: true,
      response: { 200: webhookAnswers.list },
      detail: { summary: "List webhooks with their latest delivery" },
    })
    .post(
      "/",
      async ({ user, organization, body, set }) => {
        const created = await createWebhook(ctx, organization.id, body, actorOf(user, organization));
        set.status = 201;
        return created;
      },
      {
        auth: true,
        body: webhookModel.create,
        response: { 201: webhookAnswers.created },
        detail: { summary: "Add a webhook (https; events; format json or slack); answers its signing secret once" },
      },
    )
    .delete("/:id", ({ user, organization, params }) => deleteWebhook(ctx, organization.id, params.id, actorOf(user, organization)), {
      auth: true,
      params: webhookModel.params,
      response: { 200: messageAnswer },
      detail: { summary: "Delete a webhook" },
    })
    .get("/:id/deliveries", ({ organization, params }) => listDeliveries(ctx, organization.id, params.id), {
      auth: true,
      params: webhookModel.params,
      response: { 200: webhookAnswers.deliveries },
      detail: { summary: "The webhook's latest deliveries with every attempt" },
    })
    .post("/:id/test", ({ organization, params }) => sendTestDelivery(ctx, organization.id, params.id), {
      auth: true,
      params: webhookModel.params,
      response: { 200: webhookAnswers.delivery },
      detail: { summary: "Send a test delivery now and answer how it went" },
    });
