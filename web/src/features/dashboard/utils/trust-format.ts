// How verification, anomalies and drills read on the dashboard.
import { formatDateTime } from "../../../lib/format-date";
import type { StatusTone } from "./operation-status";

type Verifiable = {
  status: string;
  verifiedAt: string | null;
  verification: { status: "ok" | "failed"; namespaces: Record<string, number>; error?: string; notReplayed?: string } | null;
  /** Why an asked verification has not started: no restore agent that can read the backup is online. */
  verificationWaitingFor?: string | null;
};

export type VerificationLook = {
  label: "Verified" | "Verification failed" | "Not verified" | "Waiting for a restore agent";
  tone: StatusTone;
  /** When it was read back, as shown under the badge; "" when never. */
  time: string;
  /** The tooltip: a sentence, then one line per collection ("db.collection: 1,234 documents"). */
  detail: string;
  lines: string[];
};

const documents = (count: number) => `${count.toLocaleString("en-US")} document${count === 1 ? "" : "s"}`;

/** The verification badge of a completed backup (null for any other): green Verified, red failed, grey not yet. */
export function describeVerification(backup: Verifiable): VerificationLook | null {
  if (backup.status !== "completed") return null;
  const time = formatDateTime(backup.verifiedAt);
  const lines = Object.entries(backup.verification?.namespaces ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([namespace, count]) => `${namespace}: ${documents(count)}`);
  // Asked, and waiting for an agent that can read it (a write-only agent's backup): said, not hidden.
  if (backup.verificationWaitingFor) return { label: "Waiting for a restore agent", tone: "warning", time, detail: backup.verificationWaitingFor, lines };
  if (!backup.verification) {
    return { label: "Not verified", tone: "neutral", time: "", detail: "The agent has not read this backup back from storage yet.", lines: [] };
  }
  if (backup.verification.status === "failed") {
    return { label: "Verification failed", tone: "danger", time, detail: backup.verification.error ?? "The stored file could not be read back.", lines };
  }
  const total = Object.values(backup.verification.namespaces).reduce((sum, count) => sum + count, 0);
  const read = `Read back from storage, decrypted and checked: ${documents(total)}.`;
  // Said, not hidden: its oplog window was not replayed here, so only the read-back proves it.
  const detail = backup.verification.notReplayed ? `${read} Its oplog window was not replayed: ${backup.verification.notReplayed}.` : read;
  return { label: "Verified", tone: "success", time, detail, lines };
}

const ANOMALY_LABELS = { size_drop: "Size drop", count_drop: "Documents drop", collection_missing: "Collection missing" } as const;

/** The anomaly badge's word for its kind. */
export function labelAnomaly(kind: keyof typeof ANOMALY_LABELS): string {
  return ANOMALY_LABELS[kind];
}

/** Milliseconds as "850 ms", "12 s" or "3 min 5 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

type DrillRecord = {
  kind: string;
  status: string;
  error: string | null;
  drill: {
    durationMs: number;
    documents: { expected: number; restored: number };
    indexes: { expected: number; found: number };
    scratchDropped: boolean;
  } | null;
};

/** The Details of a finished drill in Restore History; null for restores (they keep their own wording). */
export function describeDrillResult(record: DrillRecord): string | null {
  if (record.kind !== "drill") return null;
  if (record.status === "failed") return record.error ?? "Drill failed";
  if (record.status !== "completed") return null;
  const report = record.drill;
  if (!report) return "Drill passed";
  const dropped = report.scratchDropped ? "scratch database dropped" : "scratch database NOT dropped";
  return `Drill passed: ${documents(report.documents.restored)} restored of ${report.documents.expected.toLocaleString("en-US")}, ${report.indexes.found} of ${report.indexes.expected} indexes, in ${formatDuration(report.durationMs)}; ${dropped}`;
}
