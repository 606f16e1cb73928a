// The facts each webhook event carries (the names live in protocol/webhook-events.ts).

import type { ACCOUNT_EVENTS, AGENT_EVENTS, BACKUP_EVENTS, COPY_EVENTS, RESTORE_EVENTS } from "@protocol/webhook-events";

export {
  ACCOUNT_EVENTS,
  AGENT_EVENTS,
  BACKUP_EVENTS,
  COPY_EVENTS,
  PITR_EVENTS,
  RESTORE_EVENTS,
  TEST_EVENT,
  WEBHOOK_EVENTS,
  type WebhookEventName,
} from "@protocol/webhook-events";

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
  /** drill.completed / drill.failed: what the drill restored and checked. */
  drill?: unknown;
};

export type AgentFacts = { id: string; name: string; hostname: string | null; status: string };

/** backup_protection.off_requested: when it was asked and when the policy stops unless cancelled. */
export type ProtectionFacts = { state: "turning-off"; requestedAt: string; offAt: string };
/** A hole in a database's shipped oplog: oplog positions (seconds,increment) and their times, and why. */
export type PitrGapFacts = {
  databaseId: string;
  databaseName: string;
  from: { ts: string; at: string };
  to: { ts: string; at: string };
  reason: "rollover" | "restarted" | "missing";
};

/**
 * A database's oplog shipping fell behind (or, with seconds back under the threshold, caught up);
 * `unreachableSince`: its agent cannot reach the database itself since then.
 */
export type PitrLagFacts = { databaseId: string; databaseName: string; seconds: number; unreachableSince?: string };

/** One copy in the customer's bucket the daily check found gone or changed: where, and what it found. */
export type CopyFacts = { backupId: string; databaseName: string; destination: string; key: string; detail: string };

/** One event as the rest of the server hands it to publishEvent. */
export type DBVaultEvent =
  | { event: (typeof BACKUP_EVENTS)[number]; backup: BackupFacts }
  | { event: (typeof RESTORE_EVENTS)[number]; restore: RestoreFacts }
  | { event: (typeof AGENT_EVENTS)[number]; agent: AgentFacts }
  | { event: (typeof ACCOUNT_EVENTS)[number]; protection: ProtectionFacts }
  | { event: "pitr.gap"; gap: PitrGapFacts }
  | { event: "pitr.lag"; lag: PitrLagFacts }
  | { event: (typeof COPY_EVENTS)[number]; copies: CopyFacts[] };

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
