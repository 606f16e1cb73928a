// Sending queued deliveries. Rows in webhook_deliveries are the queue, sent by the mechanism all
// outgoing queues share (lib/delivery-queue.ts: claimed with SKIP LOCKED under a lease, retried
// with backoff); failures are retried until 24 hours after the event.
import { eq } from "drizzle-orm";
import { webhookAttempts, webhookDeliveries, webhooks } from "@db/schema";
import type { AppContext } from "../../context";
import { claimDueRows, createQueueDispatcher, pruneFinishedRows, type QueueDispatcher, RETRY_FOR_MS, retryDelay } from "../../lib/delivery-queue";
import { TEST_EVENT } from "./events";
import { signBody } from "./payload";
import { parseWebhookUrl, postToTarget, resolveWebhookTarget, type SendOptions, WebhookTargetError } from "./target";

export { FIRST_RETRY_MS, MAX_RETRY_GAP_MS, RETRY_FOR_MS, RETRY_JITTER, retryDelay } from "../../lib/delivery-queue";
const SEND_TIMEOUT_MS = 10_000;
/** Longer than any send (SEND_TIMEOUT_MS plus the database work around it). */
const LEASE_MS = 60_000;

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Claims up to `limit` due deliveries for this instance (and counts the attempt). */
const claimDue = (ctx: AppContext, limit: number, onlyId?: string): Promise<DeliveryRow[]> =>
  claimDueRows(ctx.db, webhookDeliveries, { now: ctx.now(), leaseMs: LEASE_MS, limit, where: onlyId ? eq(webhookDeliveries.id, onlyId) : undefined });

type Outcome = { statusCode: number | null; error: string | null };

/** One attempt: the webhook's address checked now, the body signed and POSTed. Never throws. */
async function attempt(ctx: AppContext, delivery: DeliveryRow, options: Partial<SendOptions>): Promise<Outcome> {
  const [webhook] = await ctx.db.select().from(webhooks).where(eq(webhooks.id, delivery.webhookId));
  if (!webhook) return { statusCode: null, error: "The webhook was deleted." };
  const policy = { allowPrivate: ctx.config.webhookAllowPrivate };
  try {
    const target = await resolveWebhookTarget(parseWebhookUrl(webhook.url, policy), policy);
    const secret = ctx.webhookBox.open(webhook.secretCiphertext);
    const statusCode = await postToTarget(
      target,
      delivery.body,
      { "x-dbvault-event": delivery.event, "x-dbvault-signature": signBody(secret, delivery.body), "x-dbvault-delivery": delivery.id },
      { timeoutMs: SEND_TIMEOUT_MS, ...options },
    );
    if (statusCode >= 200 && statusCode < 300) return { statusCode, error: null };
    const error =
      statusCode >= 300 && statusCode < 400 ? `Redirected (HTTP ${statusCode}); redirects are not followed.` : `The endpoint answered HTTP ${statusCode}.`;
    return { statusCode, error };
  } catch (error) {
    if (error instanceof WebhookTargetError) return { statusCode: null, error: error.message };
    const reason =
      error instanceof Error && error.name === "TimeoutError"
        ? `No answer within ${SEND_TIMEOUT_MS / 1000} seconds.`
        : `Could not connect: ${describeNetworkError(error)}`;
    return { statusCode: null, error: reason };
  }
}

// Network errors name the address but never carry the URL (whose path or query may hold a token).
const describeNetworkError = (error: unknown) => {
  const code = (error as { code?: string }).code;
  return code ? code : error instanceof Error ? error.message.replace(/https?:\/\/\S+/g, "the endpoint") : "unknown error";
};

/** Logs the attempt and settles the delivery: delivered, failed for good, or due again later. */
async function recordOutcome(ctx: AppContext, delivery: DeliveryRow, outcome: Outcome, attemptedAt: Date, durationMs: number) {
  const now = ctx.now();
  const delivered = outcome.error === null;
  const nextAt = new Date(now.getTime() + retryDelay(delivery.attempts));
  // A test is sent once: its answer is what the user asked for.
  const givenUp = !delivered && (delivery.event === TEST_EVENT || nextAt.getTime() > delivery.createdAt.getTime() + RETRY_FOR_MS);
  await ctx.db.transaction(async (tx) => {
    const [settled] = await tx
      .update(webhookDeliveries)
      .set(
        delivered || givenUp
          ? { status: delivered ? "delivered" : "failed", finishedAt: now, lockedUntil: null }
          : { nextAttemptAt: nextAt, lockedUntil: null },
      )
      .where(eq(webhookDeliveries.id, delivery.id))
      .returning({ id: webhookDeliveries.id });
    // Gone: its webhook was deleted meanwhile, and its log with it.
    if (!settled) return;
    await tx.insert(webhookAttempts).values({ deliveryId: delivery.id, attemptedAt, statusCode: outcome.statusCode, error: outcome.error, durationMs });
  });
  if (!delivered)
    ctx.log.warn("webhook delivery failed", {
      deliveryId: delivery.id,
      webhookId: delivery.webhookId,
      event: delivery.event,
      attempt: delivery.attempts,
      givenUp,
      statusCode: outcome.statusCode,
    });
}

/**
 * Sends the deliveries that are due, a batch at a time, until none is left; answers how many were
 * attempted. `onlyId` sends just that one (Send test).
 */
export async function sendDueDeliveries(ctx: AppContext, options: { onlyId?: string; batch?: number } & Partial<SendOptions> = {}) {
  let attempted = 0;
  for (;;) {
    const claimed = await claimDue(ctx, options.batch ?? 10, options.onlyId);
    if (claimed.length === 0) return attempted;
    await Promise.all(
      claimed.map(async (delivery) => {
        const attemptedAt = ctx.now();
        const started = performance.now();
        const outcome = await attempt(ctx, delivery, options);
        await recordOutcome(ctx, delivery, outcome, attemptedAt, Math.round(performance.now() - started));
      }),
    );
    attempted += claimed.length;
    if (options.onlyId) return attempted;
  }
}

/** How long the log keeps a delivery after it was delivered or given up. */
export const KEEP_FINISHED_MS = 30 * 24 * 3_600_000;

/** Deletes deliveries (and their attempts) finished more than 30 days ago; answers how many. */
export const pruneFinishedDeliveries = (ctx: AppContext) => pruneFinishedRows(ctx.db, webhookDeliveries, new Date(ctx.now().getTime() - KEEP_FINISHED_MS));

/** Runs one sending pass at a time; a kick during a pass runs another pass after it. */
export const createWebhookDispatcher = (ctx: () => AppContext): QueueDispatcher =>
  createQueueDispatcher("webhook deliveries", ctx, (current) => sendDueDeliveries(current));
