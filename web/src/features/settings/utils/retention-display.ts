// How the retention preview and the drill schedule read on the General tab.
import type { UserSettings } from "../api/settings-api";

type DrillFrequency = UserSettings["drillFrequency"];

const REASONS: Record<string, string> = {
  "kept-forever": "kept forever",
  newest: "newest",
  "last-verified": "last verified",
  "last-good": "last good before an anomaly",
  retention: "within the retention period",
  recent: "last 24 hours",
  daily: "daily",
  weekly: "weekly",
  monthly: "monthly",
  expired: "older than the retention period",
  "not-selected": "not a daily, weekly or monthly pick",
  "beyond-plan": "older than your plan allows",
};

/** Why the preview keeps (or deletes) a backup, in words: "Kept: daily, weekly" or "Deleted: older than your plan allows". */
export function describeRetentionDecision(row: { keep: boolean; reasons: readonly string[] }): string {
  const words = row.reasons.map((reason) => REASONS[reason] ?? reason).join(", ");
  return `${row.keep ? "Kept" : "Deleted"}: ${words}`;
}

/** "Keeps 12 of 30 backups." (the preview's summary line). */
export function summarizePreview(preview: { kept: number; deleted: number }): string {
  const total = preview.kept + preview.deleted;
  if (total === 0) return "No completed backups yet: the policy applies to the backups to come.";
  return `Keeps ${preview.kept} of ${total} backup${total === 1 ? "" : "s"}${preview.deleted > 0 ? `; ${preview.deleted} would be deleted at the next retention pass` : ""}.`;
}

export const DRILL_FREQUENCY_OPTIONS: { value: DrillFrequency; label: string }[] = [
  { value: "off", label: "Off" },
  { value: "weekly", label: "Weekly" },
  { value: "monthly", label: "Monthly" },
];
