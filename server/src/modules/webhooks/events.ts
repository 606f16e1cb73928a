// The events DBVault announces to webhooks, and the facts each carries. Names are the public
// contract (X-DBVault-Event, the "event" field, the events a webhook subscribes to).

export const BACKUP_EVENTS = ["backup.completed", "backup.failed", "backup.verified", "backup.verification_failed", "backup.anomaly"] as const;
export const RESTORE_EVENTS = ["restore.completed", "restore.failed", "drill.completed", "drill.failed"] as const;
export const AGENT_EVENTS = ["agent.offline", "agent.online"] as const;
export const WEBHOOK_EVENTS = [...BACKUP_EVENTS, ...RESTORE_EVENTS, ...AGENT_EVENTS] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

/** The event "Send test" delivers; no webhook subscribes to it, every webhook can be sent it. */
export const TEST_EVENT = "webhook.test";

/** What a webhook is told about a backup: names, sizes and outcomes, never data or secrets. */
export type BackupFacts = {
  id: string;
  databaseName: string;
  type: string;
  status: string;
  size: number;
  sha256?: string | null;
  createdAt?: string;
  completedAt?: string | null;
  error?: string | null;
  /** Documents per collection as dumped ("db.collection": count). */
  collections?: Record<string, number> | null;
  /** backup.verified / backup.verification_failed: the agent's verification result. */
  verification?: unknown;
  /** backup.anomaly: what looked wrong. */
  anomaly?: unknown;
};

export type RestoreFacts = {
  id: string;
  backupId: string | null;
  databaseName: string;
  targetDatabase: string | null;
  status: string;
  error?: string | null;
  /** Documents restored and failed per collection. */
  stats?: Record<string, unknown> | null;
  completedAt?: string | null;
};

export type AgentFacts = { id: string; name: string; hostname: string | null; status: string };

/** One event as the rest of the server hands it to publishEvent. */
export type DBVaultEvent =
  | { event: (typeof BACKUP_EVENTS)[number]; backup: BackupFacts }
  | { event: (typeof RESTORE_EVENTS)[number]; restore: RestoreFacts }
  | { event: (typeof AGENT_EVENTS)[number]; agent: AgentFacts };

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

/** The facts of a backup row (or any object with its columns). */
export function backupFacts(backup: {
  id: string;
  databaseName: string;
  type: string;
  status: string;
  size: number;
  sha256?: string | null;
  createdAt?: Date;
  completedAt?: Date | null;
  error?: string | null;
  collections?: Record<string, number> | null;
}): BackupFacts {
  return {
    id: backup.id,
    databaseName: backup.databaseName,
    type: backup.type,
    status: backup.status,
    size: backup.size,
    sha256: backup.sha256 ?? null,
    createdAt: iso(backup.createdAt) ?? undefined,
    completedAt: iso(backup.completedAt),
    error: backup.error ?? null,
    collections: backup.collections ?? null,
  };
}

/** The facts of a restore row. */
export function restoreFacts(restore: {
  id: string;
  backupId: string | null;
  databaseName: string;
  targetDatabase: string | null;
  status: string;
  error: string | null;
  stats: Record<string, unknown> | null;
  completedAt?: Date | null;
}): RestoreFacts {
  return {
    id: restore.id,
    backupId: restore.backupId,
    databaseName: restore.databaseName,
    targetDatabase: restore.targetDatabase,
    status: restore.status,
    error: restore.error,
    stats: restore.stats,
    completedAt: iso(restore.completedAt),
  };
}

/** The facts of an agent row. */
export const agentFacts = (agent: { id: string; name: string; hostname: string | null; status: string }): AgentFacts => ({
  id: agent.id,
  name: agent.name,
  hostname: agent.hostname,
  status: agent.status,
});
