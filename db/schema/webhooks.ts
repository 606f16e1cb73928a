import { index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAtColumn, idColumn, timestampColumn } from "./columns";
import { organizations } from "./organizations";

export const webhookFormats = ["json", "slack"] as const;
export type WebhookFormat = (typeof webhookFormats)[number];
export const webhookDeliveryStatuses = ["pending", "delivered", "failed"] as const;
export type WebhookDeliveryStatus = (typeof webhookDeliveryStatuses)[number];

/** A user's notification channel: an HTTPS endpoint (plain JSON or a Slack incoming webhook). */
export const webhooks = pgTable(
  "webhooks",
  {
    id: idColumn(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    /** Event names this endpoint receives (modules/webhooks/events.ts). */
    events: jsonb("events").$type<string[]>().notNull(),
    format: text("format", { enum: webhookFormats }).notNull().default("json"),
    /** The signing secret, sealed under a key derived from API_KEY_SECRET (lib/secret-box.ts). */
    secretCiphertext: text("secret_ciphertext").notNull(),
    createdAt: createdAtColumn(),
  },
  (table) => [index("webhooks_organization_idx").on(table.organizationId)],
);

/**
 * One event for one webhook, kept until delivered or given up (24 hours of retries). The body is
 * stored as sent, so every retry carries the same bytes and signature.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: idColumn(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    body: text("body").notNull(),
    status: text("status", { enum: webhookDeliveryStatuses }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestampColumn("next_attempt_at").notNull(),
    /** Set while an instance is sending it: nobody else claims it before this time. */
    lockedUntil: timestampColumn("locked_until"),
    createdAt: createdAtColumn(),
    finishedAt: timestampColumn("finished_at"),
  },
  (table) => [
    index("webhook_deliveries_due_idx").on(table.status, table.nextAttemptAt),
    index("webhook_deliveries_webhook_created_idx").on(table.webhookId, table.createdAt),
  ],
);

/** Every attempt to send a delivery: when, the HTTP status answered (or why none was), how long. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: idColumn(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attemptedAt: timestampColumn("attempted_at").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
  },
  (table) => [index("webhook_attempts_delivery_idx").on(table.deliveryId, table.attemptedAt)],
);
