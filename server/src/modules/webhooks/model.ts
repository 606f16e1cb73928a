import { t } from "elysia";
import { webhookDeliveryStatuses, webhookFormats } from "@db/schema";
import { isoDate, nullable, oneOf } from "../../lib/schema";
import { WEBHOOK_EVENTS } from "./events";
import { MAX_URL_LENGTH } from "./target";

const eventsError = `events must be a list of one or more of ${WEBHOOK_EVENTS.join(", ")}`;

export const webhookModel = {
  create: t.Object({
    url: t.String({ minLength: 1, maxLength: MAX_URL_LENGTH, error: `url must be an https URL of at most ${MAX_URL_LENGTH} characters` }),
    events: t.Array(oneOf(WEBHOOK_EVENTS, eventsError), { minItems: 1, maxItems: WEBHOOK_EVENTS.length * 2, error: eventsError }),
    format: t.Optional(oneOf(webhookFormats, 'format must be "json" or "slack"')),
  }),
  params: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
};

const delivery = t.Object({
  id: t.String(),
  event: t.String({ description: "The event name, or webhook.test for Send test" }),
  status: oneOf(webhookDeliveryStatuses, "status"),
  attempts: t.Integer(),
  createdAt: isoDate(),
  finishedAt: nullable(isoDate()),
  nextAttemptAt: nullable(isoDate()),
  lastStatusCode: nullable(t.Integer({ description: "HTTP status of the last attempt; null when no answer came" })),
  lastError: nullable(t.String()),
  log: t.Array(
    t.Object({
      attemptedAt: isoDate(),
      statusCode: nullable(t.Integer()),
      error: nullable(t.String()),
      durationMs: t.Integer(),
    }),
    { description: "Every attempt, oldest first" },
  ),
});

const webhook = {
  id: t.String(),
  url: t.String(),
  events: t.Array(t.String()),
  format: oneOf(webhookFormats, "format"),
  createdAt: isoDate(),
  lastDelivery: nullable(delivery),
};

export const webhookAnswers = {
  created: t.Object({ ...webhook, secret: t.String({ description: "Signing secret of X-DBVault-Signature; shown only now" }) }),
  list: t.Array(t.Object(webhook)),
  delivery,
  deliveries: t.Array(delivery),
};
