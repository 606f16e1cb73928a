// Sending queued deliveries. Rows in webhook_deliveries are the queue: any instance may send any
// of them, each claimed with FOR UPDATE SKIP LOCKED and leased (lockedUntil) while it is sent, so
// one instance sends each attempt; a crash mid-send leaves the lease to expire and the delivery is
// tried again. Failures are retried with exponential backoff until 24 hours after the event.
import { and, eq, inArray, isNull, lt, lte, ne, or, sql } from "drizzle-orm";
import { webhookAttempts, webhookDeliveries, webhooks } from "@db/schema";
import type { AppContext } from "../../context";
import { TEST_EVENT } from "./events";
import { signBody } from "./payload";
import { parseWebhookUrl, postToTarget, resolveWebhookTarget, type SendOptions, WebhookTargetError } from "./target";

export const RETRY_FOR_MS = 24 * 3_600_000;
/** First retry after 30 s, doubling up to an hour between attempts (plus up to RETRY_JITTER). */
export const FIRST_RETRY_MS = 30_000;
export const MAX_RETRY_GAP_MS = 3_600_000;
const SEND_TIMEOUT_MS = 10_000;
/** Longer than any send (SEND_TIMEOUT_MS plus the database work around it). */
const LEASE_MS = 60_000;

/**
 * Up to this fraction of each wait is added at random, so that the deliveries that failed together
 * (every event while an endpoint was down) are not all retried in the same second when it is back.
 */
export const RETRY_JITTER = 0.2;

/** Wait before the attempt after `attempts` failed ones; `random` in [0, 1) picks the jitter. */
export const retryDelay = (attempts: number, random = Math.random()) =>
  Math.round(Math.min(MAX_RETRY_GAP_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1)) * (1 + RETRY_JITTER * random));

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Claims up to `limit` due deliveries for this instance (and counts the attempt). */
async function claimDue(ctx: AppContext, limit: number, onlyId?: string): Promise<DeliveryRow[]> {
  const now = ctx.now();
  const due = ctx.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.status, "pending"),
        lte(webhookDeliveries.nextAttemptAt, now),
        or(isNull(webhookDeliveries.lockedUntil), lte(webhookDeliveries.lockedUntil, now)),
        ...(onlyId ? [eq(webhookDeliveries.id, onlyId)] : []),
      ),
    )
    .orderBy(webhookDeliveries.nextAttemptAt)
    .limit(limit)
    .for("update", { skipLocked: true });
  return ctx.db
    .update(webhookDeliveries)
    .set({ lockedUntil: new Date(now.getTime() + LEASE_MS), attempts: sql`${webhookDeliveries.attempts} + 1` })
    .where(inArray(webhookDeliveries.id, due))
    .returning();
}

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
    const error = statusCode >= 300 && statusCode < 400 ? `Redirected (HTTP ${statusCode}); redirects are not followed.` : `The endpoint answered HTTP ${statusCode}.`;
    return { statusCode, error };
  } catch (error) {
    if (error instanceof WebhookTargetError) return { statusCode: null, error: error.message };
    const reason = error instanceof Error && error.name === "TimeoutError" ? `No answer within ${SEND_TIMEOUT_MS / 1000} seconds.` : `Could not connect: ${describeNetworkError(error)}`;
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
  if (!delivered) ctx.log.warn("webhook delivery failed", { deliveryId: delivery.id, webhookId: delivery.webhookId, event: delivery.event, attempt: delivery.attempts, givenUp, statusCode: outcome.statusCode });
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
export async function pruneFinishedDeliveries(ctx: AppContext) {
  const before = new Date(ctx.now().getTime() - KEEP_FINISHED_MS);
  const gone = await ctx.db
    .delete(webhookDeliveries)
    .where(and(ne(webhookDeliveries.status, "pending"), lt(webhookDeliveries.finishedAt, before)))
    .returning({ id: webhookDeliveries.id });
  return gone.length;
}

export type WebhookDispatcher = {
  /** Sends what is due soon, in the background (after an event, and on a timer for retries). */
  kick(): void;
};

/** Runs one sending pass at a time; a kick during a pass runs another pass after it. */
export function createWebhookDispatcher(ctx: () => AppContext): WebhookDispatcher {
  let running = false;
  let again = false;
  const run = async () => {
    running = true;
    try {
      do {
        again = false;
        await sendDueDeliveries(ctx());
      } while (again);
    } catch (error) {
      ctx().log.error("webhook deliveries failed", { error });
    } finally {
      running = false;
    }
  };
  return {
    kick() {
      if (running) {
        again = true;
        return;
      }
      void ctx().pendingWork.track(run());
    },
  };
}
