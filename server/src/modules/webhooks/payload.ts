import { createHmac } from "node:crypto";
import type { WebhookFormat } from "@db/schema";
import { formatBytes } from "@protocol/format";
import { type DBVaultEvent, TEST_EVENT } from "./events";

/** An event as delivered: one of DBVault's events, or the test "Send test" delivers. */
export type DeliveredEvent = DBVaultEvent | { event: typeof TEST_EVENT };

/** `sha256=<hex HMAC-SHA256 of the raw body>`: the X-DBVault-Signature of a body. */
export const signBody = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

/** The body of a delivery, as the webhook's format wants it. */
export function renderBody(event: DeliveredEvent, format: WebhookFormat, occurredAt: Date, publicUrl: string): string {
  if (format === "slack") return JSON.stringify(slackMessage(event, occurredAt, publicUrl));
  if (event.event === TEST_EVENT) {
    return JSON.stringify({ event: event.event, occurredAt: occurredAt.toISOString(), message: "A test delivery from DBVault: this webhook works." });
  }
  return JSON.stringify({ ...event, event: event.event, occurredAt: occurredAt.toISOString() });
}

// Slack's mrkdwn treats these three as markup; names from users must not become links or mentions.
const escapeSlack = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** One line saying what happened, for Slack's `text` (also its notification preview). */
export function describeEvent(event: DeliveredEvent): string {
  const name = (value: string) => `*${escapeSlack(value)}*`;
  const reason = (error: string | null | undefined) => (error ? `: ${escapeSlack(error)}` : "");
  switch (event.event) {
    case "backup.completed":
      return `:white_check_mark: Backup of ${name(event.backup.databaseName)} completed (${formatBytes(event.backup.size)}, encrypted).`;
    case "backup.failed":
      return `:x: Backup of ${name(event.backup.databaseName)} failed${reason(event.backup.error)}`;
    case "backup.verified":
      return `:white_check_mark: Backup of ${name(event.backup.databaseName)} verified: it reads back and decrypts completely.`;
    case "backup.verification_failed":
      return `:rotating_light: Backup of ${name(event.backup.databaseName)} failed verification${reason(event.backup.error)}`;
    case "backup.anomaly":
      return `:warning: Backup of ${name(event.backup.databaseName)} looks anomalous (much smaller than usual, or a collection is missing).`;
    case "restore.completed":
      return `:white_check_mark: Restore into ${name(event.restore.targetDatabase ?? event.restore.databaseName)} completed.`;
    case "restore.failed":
      return `:x: Restore into ${name(event.restore.targetDatabase ?? event.restore.databaseName)} failed${reason(event.restore.error)}`;
    case "drill.completed":
      return `:white_check_mark: Restore drill of ${name(event.restore.databaseName)} passed.`;
    case "drill.failed":
      return `:rotating_light: Restore drill of ${name(event.restore.databaseName)} failed${reason(event.restore.error)}`;
    case "agent.offline":
      return `:electric_plug: Agent ${name(event.agent.name)}${event.agent.hostname ? ` on ${escapeSlack(event.agent.hostname)}` : ""} went offline.`;
    case "agent.online":
      return `:large_green_circle: Agent ${name(event.agent.name)}${event.agent.hostname ? ` on ${escapeSlack(event.agent.hostname)}` : ""} is online.`;
    case "backup_protection.off_requested":
      return `:warning: Someone asked to turn *Protect backups* off. It takes effect on ${event.protection.offAt} unless cancelled in Settings → Security.`;
    case "pitr.gap":
      return `:warning: Point-in-time recovery of ${name(event.gap.databaseName)} has a gap from ${event.gap.from.at} to ${event.gap.to.at} (${event.gap.reason}): take a full backup now.`;
    case "pitr.lag":
      return event.lag.unreachableSince
        ? `:hourglass: Point-in-time recovery of ${name(event.lag.databaseName)} is ${event.lag.seconds} s behind: its agent can't reach the database since ${event.lag.unreachableSince}.`
        : `:hourglass: Point-in-time recovery of ${name(event.lag.databaseName)} is ${event.lag.seconds} s behind: its agent cannot ship the oplog fast enough, or cannot reach DBVault.`;
    case "copy.missing":
    case "copy.changed":
      return `:rotating_light: ${copiesLine(event.copies, event.event === "copy.missing" ? "gone from" : "changed in")}: check who can write to the bucket.`;
    case "copy.unreachable":
      return `:warning: ${copiesLine(event.copies, "unchecked for a day: no answer from")}. Check that the bucket exists and that the agent's credentials for it work.`;
    case TEST_EVENT:
      return "A test message from DBVault: this Slack webhook works.";
  }
}

/** "2 backup copies of *shop* gone from s3://bucket/prefix/": the databases and buckets, each named once. */
function copiesLine(copies: { databaseName: string; destination: string }[], what: string): string {
  const names = (values: string[]) => [...new Set(values)].map((value) => `*${escapeSlack(value)}*`).join(", ");
  const count = copies.length === 1 ? "A backup copy" : `${copies.length} backup copies`;
  const buckets = [...new Set(copies.map((copy) => escapeSlack(copy.destination.split("?")[0]!)))].join(", ");
  return `${count} of ${names(copies.map((copy) => copy.databaseName))} ${what} ${buckets}`;
}

/** A Slack incoming-webhook message: `text` for notifications, `blocks` for the layout. */
function slackMessage(event: DeliveredEvent, occurredAt: Date, publicUrl: string) {
  const text = describeEvent(event);
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text } },
      {
        type: "context",
        elements: [{ type: "mrkdwn", text: `\`${event.event}\` at ${occurredAt.toISOString()} · <${publicUrl}/dashboard|Open DBVault>` }],
      },
    ],
  };
}
