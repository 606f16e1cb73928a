// The events DBVault announces to webhooks: the public contract (the "event" field, the
// X-DBVault-Event header, the names a webhook subscribes to), shared by the server and the web app.

export const BACKUP_EVENTS = ["backup.completed", "backup.failed", "backup.verified", "backup.verification_failed", "backup.anomaly"] as const;
export const RESTORE_EVENTS = ["restore.completed", "restore.failed", "drill.completed", "drill.failed"] as const;
export const AGENT_EVENTS = ["agent.offline", "agent.online"] as const;
/** The account's "Protect backups" policy: someone asked to turn it off (it takes effect 7 days later unless cancelled). */
export const ACCOUNT_EVENTS = ["backup_protection.off_requested"] as const;
/** Point-in-time recovery: a hole in the shipped oplog (a rollover, a chain started again). */
export const PITR_EVENTS = ["pitr.gap", "pitr.lag"] as const;
/**
 * The agent's daily check of the copies in the customer's own buckets found some gone, or other
 * bytes in their place, or could not reach their bucket for a day.
 */
export const COPY_EVENTS = ["copy.missing", "copy.changed", "copy.unreachable"] as const;
export const WEBHOOK_EVENTS = [...BACKUP_EVENTS, ...RESTORE_EVENTS, ...AGENT_EVENTS, ...PITR_EVENTS, ...COPY_EVENTS, ...ACCOUNT_EVENTS] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

/** The event "Send test" delivers; no webhook subscribes to it, every webhook can be sent it. */
export const TEST_EVENT = "webhook.test";
