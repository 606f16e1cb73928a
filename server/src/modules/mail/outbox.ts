// E-mail goes out through a durable queue (the mail_outbox table), sent by the mechanism the
// webhooks use (lib/delivery-queue.ts): an alert raised while the mail server is down, answers
// 4xx or hangs is kept, survives a restart and is retried with backoff, sent once by whichever
// instance claims it; the job that raised it (a backup, the scheduler's sweep) never waits on SMTP.
import { eq } from "drizzle-orm";
import { mailOutbox } from "@db/schema";
import type { AppContext } from "../../context";
import { claimDueRows, createQueueDispatcher, pruneFinishedRows, type QueueDispatcher, RETRY_FOR_MS, retryDelay } from "../../lib/delivery-queue";
import { type Mail, MailError, MAIL_TIMEOUT_MS } from "./mailer";

/** Longer than any send: connecting, greeting and each command are bounded by MAIL_TIMEOUT_MS. */
const LEASE_MS = 10 * MAIL_TIMEOUT_MS;
/** How long a sent or abandoned mail is kept (for an operator looking into a missing alert). */
export const KEEP_FINISHED_MAIL_MS = 30 * 24 * 3_600_000;

type OutboxRow = typeof mailOutbox.$inferSelect;

/**
 * Stores a mail to send and starts sending in the background. It is retried until `giveUpAfterMs`
 * after now (24 hours unless said otherwise: a reset link's mail is useless once the link expired).
 */
export async function queueMail(ctx: AppContext, mail: Mail, options: { giveUpAfterMs?: number } = {}) {
  const now = ctx.now();
  await ctx.db.insert(mailOutbox).values({
    recipient: mail.to,
    subject: mail.subject,
    // Sealed: a reset link's token is otherwise kept only hashed; emptied once the mail is settled.
    body: ctx.mailBox.seal(mail.text),
    nextAttemptAt: now,
    giveUpAt: new Date(now.getTime() + (options.giveUpAfterMs ?? RETRY_FOR_MS)),
    createdAt: now,
  });
  ctx.mail.kick();
}

/** Sends one claimed mail and settles it: sent, failed for good, or due again later. Never throws. */
async function sendOne(ctx: AppContext, row: OutboxRow) {
  let failure: MailError | null = null;
  try {
    await ctx.mailer.send({ to: row.recipient, subject: row.subject, text: ctx.mailBox.open(row.body) });
  } catch (error) {
    failure = error instanceof MailError ? error : new MailError("The mail could not be sent.", false);
  }
  const now = ctx.now();
  const nextAt = new Date(now.getTime() + retryDelay(row.attempts));
  const givenUp = failure !== null && (failure.permanent || nextAt.getTime() > row.giveUpAt.getTime());
  await ctx.db
    .update(mailOutbox)
    .set(
      failure === null || givenUp
        ? { status: failure ? "failed" : "sent", finishedAt: now, lockedUntil: null, lastError: failure?.message ?? null, body: "" }
        : { nextAttemptAt: nextAt, lockedUntil: null, lastError: failure.message },
    )
    .where(eq(mailOutbox.id, row.id));
  if (!failure) return;
  // The operator's view of a missing alert: who, what, why, and whether it will be tried again.
  const fields = { mailId: row.id, to: row.recipient, subject: row.subject, attempt: row.attempts, reason: failure.message };
  if (givenUp) ctx.log.error("mail given up", fields);
  else ctx.log.warn("mail not sent; will retry", { ...fields, nextAttemptAt: nextAt.toISOString() });
}

/** Sends the mail that is due, a batch at a time (bounded concurrency), until none is left; answers how many were attempted. */
export async function sendDueMail(ctx: AppContext, options: { batch?: number } = {}) {
  let attempted = 0;
  for (;;) {
    const claimed = await claimDueRows(ctx.db, mailOutbox, { now: ctx.now(), leaseMs: LEASE_MS, limit: options.batch ?? 10 });
    if (claimed.length === 0) return attempted;
    await Promise.all(claimed.map((row) => sendOne(ctx, row)));
    attempted += claimed.length;
  }
}

/** Deletes mail sent or given up more than 30 days ago; answers how many. */
export const pruneFinishedMail = (ctx: AppContext) => pruneFinishedRows(ctx.db, mailOutbox, new Date(ctx.now().getTime() - KEEP_FINISHED_MAIL_MS));

export const createMailDispatcher = (ctx: () => AppContext): QueueDispatcher => createQueueDispatcher("mail sending", ctx, (current) => sendDueMail(current));
