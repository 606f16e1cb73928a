import { randomBytes } from "node:crypto";
import { and, asc, count, desc, eq, inArray, sql } from "drizzle-orm";
import { type WebhookFormat, webhookAttempts, webhookDeliveries, webhooks } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, badRequest, notFound } from "../../lib/errors";
import { type AuditActor, recordAudit } from "../audit/service";
import { sendDueDeliveries } from "./deliveries";
import { type DBVaultEvent, TEST_EVENT, WEBHOOK_EVENTS } from "./events";
import { type DeliveredEvent, renderBody } from "./payload";
import { parseWebhookUrl, resolveWebhookTarget, WebhookTargetError } from "./target";

export const MAX_WEBHOOKS_PER_USER = 10;
/** Deliveries (with their attempts) the log shows per webhook. */
export const DELIVERY_LOG_SIZE = 20;

type WebhookRow = typeof webhooks.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;
type AttemptRow = typeof webhookAttempts.$inferSelect;

const iso = (date: Date | null) => date?.toISOString() ?? null;

function toDeliveryView(delivery: DeliveryRow, attempts: AttemptRow[]) {
  const last = attempts.at(-1) ?? null;
  return {
    id: delivery.id,
    event: delivery.event,
    status: delivery.status,
    attempts: delivery.attempts,
    createdAt: delivery.createdAt.toISOString(),
    finishedAt: iso(delivery.finishedAt),
    nextAttemptAt: delivery.status === "pending" ? delivery.nextAttemptAt.toISOString() : null,
    lastStatusCode: last?.statusCode ?? null,
    lastError: last?.error ?? null,
    log: attempts.map((a) => ({ attemptedAt: a.attemptedAt.toISOString(), statusCode: a.statusCode, error: a.error, durationMs: a.durationMs })),
  };
}

function toWebhookView(webhook: WebhookRow, lastDelivery: ReturnType<typeof toDeliveryView> | null) {
  return { id: webhook.id, url: webhook.url, events: webhook.events, format: webhook.format, createdAt: webhook.createdAt.toISOString(), lastDelivery };
}

/** Attempts of these deliveries, oldest first, grouped by delivery. */
async function attemptsOf(ctx: AppContext, deliveryIds: string[]) {
  const byDelivery = new Map<string, AttemptRow[]>();
  if (deliveryIds.length === 0) return byDelivery;
  const rows = await ctx.db
    .select()
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.deliveryId, deliveryIds))
    .orderBy(asc(webhookAttempts.attemptedAt), asc(webhookAttempts.id));
  for (const row of rows) byDelivery.set(row.deliveryId, [...(byDelivery.get(row.deliveryId) ?? []), row]);
  return byDelivery;
}

async function ownedWebhook(ctx: AppContext, organizationId: string, webhookId: string) {
  const [webhook] = await ctx.db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, webhookId), eq(webhooks.organizationId, organizationId)));
  if (!webhook) throw notFound("Webhook");
  return webhook;
}

/** Checks a URL as a webhook target now (form and resolved addresses); a refusal is a 400 with its reason. */
async function checkTarget(ctx: AppContext, raw: string) {
  const policy = { allowPrivate: ctx.config.webhookAllowPrivate };
  try {
    return await resolveWebhookTarget(parseWebhookUrl(raw, policy), policy);
  } catch (error) {
    if (error instanceof WebhookTargetError) throw badRequest(error.message);
    throw error;
  }
}

/** Adds a webhook; its signing secret is answered this once (the server keeps it sealed). */
export async function createWebhook(
  ctx: AppContext,
  organizationId: string,
  input: { url: string; events: string[]; format?: WebhookFormat },
  actor?: AuditActor,
) {
  const url = (await checkTarget(ctx, input.url.trim())).url;
  const events = [...new Set(input.events)];
  const unknown = events.filter((event) => !(WEBHOOK_EVENTS as readonly string[]).includes(event));
  if (unknown.length > 0) throw badRequest(`Unknown event(s): ${unknown.join(", ")}. Choose from ${WEBHOOK_EVENTS.join(", ")}.`);
  const [owned] = await ctx.db.select({ total: count() }).from(webhooks).where(eq(webhooks.organizationId, organizationId));
  if ((owned?.total ?? 0) >= MAX_WEBHOOKS_PER_USER) {
    throw new AppError(409, "CONFLICT", `You already have ${MAX_WEBHOOKS_PER_USER} webhooks. Delete one before adding another.`);
  }
  const secret = `whsec_${randomBytes(32).toString("base64url")}`;
  const webhook = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(webhooks)
      .values({ organizationId, url: url.href, events, format: input.format ?? "json", secretCiphertext: ctx.webhookBox.seal(secret) })
      .returning();
    await recordAudit(tx, organizationId, "WEBHOOK_CREATED", { webhookId: row!.id, host: url.host, events, format: row!.format }, actor);
    return row!;
  });
  ctx.log.info("webhook created", { organizationId, webhookId: webhook.id, host: url.host });
  return { ...toWebhookView(webhook, null), secret };
}

/** A user's webhooks, oldest first, each with its latest delivery. */
export async function listWebhooks(ctx: AppContext, organizationId: string) {
  const rows = await ctx.db.select().from(webhooks).where(eq(webhooks.organizationId, organizationId)).orderBy(asc(webhooks.createdAt), asc(webhooks.id));
  if (rows.length === 0) return [];
  const latest = await ctx.db
    .selectDistinctOn([webhookDeliveries.webhookId])
    .from(webhookDeliveries)
    .where(
      inArray(
        webhookDeliveries.webhookId,
        rows.map((row) => row.id),
      ),
    )
    .orderBy(webhookDeliveries.webhookId, desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id));
  const attempts = await attemptsOf(
    ctx,
    latest.map((delivery) => delivery.id),
  );
  return rows.map((webhook) => {
    const delivery = latest.find((d) => d.webhookId === webhook.id);
    return toWebhookView(webhook, delivery ? toDeliveryView(delivery, attempts.get(delivery.id) ?? []) : null);
  });
}

export async function deleteWebhook(ctx: AppContext, organizationId: string, webhookId: string, actor?: AuditActor) {
  const webhook = await ownedWebhook(ctx, organizationId, webhookId);
  await ctx.db.transaction(async (tx) => {
    await tx.delete(webhooks).where(eq(webhooks.id, webhook.id));
    await recordAudit(tx, organizationId, "WEBHOOK_DELETED", { webhookId: webhook.id, host: new URL(webhook.url).host }, actor);
  });
  return { message: "Webhook deleted. It receives no more events." };
}

/** The webhook's latest deliveries, newest first, each with every attempt. */
export async function listDeliveries(ctx: AppContext, organizationId: string, webhookId: string) {
  const webhook = await ownedWebhook(ctx, organizationId, webhookId);
  const rows = await ctx.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhook.id))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(DELIVERY_LOG_SIZE);
  const attempts = await attemptsOf(
    ctx,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toDeliveryView(row, attempts.get(row.id) ?? []));
}

/** Queues one delivery of `event` per webhook; answers the new deliveries' ids. */
async function queueDeliveries(ctx: AppContext, targets: WebhookRow[], event: DeliveredEvent) {
  if (targets.length === 0) return [];
  const occurredAt = ctx.now();
  const rows = await ctx.db
    .insert(webhookDeliveries)
    .values(
      targets.map((webhook) => ({
        webhookId: webhook.id,
        event: event.event,
        body: renderBody(event, webhook.format, occurredAt, ctx.config.publicUrl),
        nextAttemptAt: occurredAt,
        createdAt: occurredAt,
      })),
    )
    .returning({ id: webhookDeliveries.id });
  return rows.map((row) => row.id);
}

/** Sends a test delivery now and answers how it went (it is logged like any other, and not retried). */
export async function sendTestDelivery(ctx: AppContext, organizationId: string, webhookId: string) {
  const webhook = await ownedWebhook(ctx, organizationId, webhookId);
  const [deliveryId] = await queueDeliveries(ctx, [webhook], { event: TEST_EVENT });
  await sendDueDeliveries(ctx, { onlyId: deliveryId });
  const [delivery] = await ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId!));
  return toDeliveryView(delivery!, (await attemptsOf(ctx, [deliveryId!])).get(deliveryId!) ?? []);
}

/**
 * Announces an event to every webhook of the user subscribed to it: the deliveries are stored
 * (they survive a restart and are retried for 24 hours) and sending starts in the background.
 * Never throws: a webhook problem must not fail the backup or restore that caused the event.
 */
export async function publishEvent(ctx: AppContext, organizationId: string, event: DBVaultEvent) {
  try {
    const subscribed = await ctx.db
      .select()
      .from(webhooks)
      .where(and(eq(webhooks.organizationId, organizationId), sql`${webhooks.events} @> ${JSON.stringify([event.event])}::jsonb`));
    if ((await queueDeliveries(ctx, subscribed, event)).length > 0) ctx.webhooks.kick();
  } catch (error) {
    ctx.log.error("webhook event could not be queued", { organizationId, event: event.event, error });
  }
}
