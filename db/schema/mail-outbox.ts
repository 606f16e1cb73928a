import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAtColumn, idColumn, timestampColumn } from "./columns";

export const mailStatuses = ["pending", "sent", "failed"] as const;
export type MailStatus = (typeof mailStatuses)[number];

/**
 * E-mail waiting to be sent, kept until the mail server accepts it or it is given up (giveUpAt):
 * an alert raised while the mail server is down, refusing or hanging is sent when it is back, by
 * whichever instance claims it (modules/notifications/outbox.ts), even after a restart.
 */
export const mailOutbox = pgTable(
  "mail_outbox",
  {
    id: idColumn(),
    /** The recipient as resolved when the mail was queued (the notification address then). */
    recipient: text("recipient").notNull(),
    subject: text("subject").notNull(),
    /** The text, sealed (ctx.mailBox: a reset link's token is otherwise kept only hashed); "" once settled. */
    body: text("body").notNull(),
    status: text("status", { enum: mailStatuses }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestampColumn("next_attempt_at").notNull(),
    /** Set while an instance is sending it: nobody else claims it before this time. */
    lockedUntil: timestampColumn("locked_until"),
    /** No attempt after this (a reset link's mail is useless once the link expired). */
    giveUpAt: timestampColumn("give_up_at").notNull(),
    /** Why the latest attempt failed (the mail server's answer; never the SMTP credentials). */
    lastError: text("last_error"),
    createdAt: createdAtColumn(),
    finishedAt: timestampColumn("finished_at"),
  },
  (table) => [index("mail_outbox_due_idx").on(table.status, table.nextAttemptAt)],
);
