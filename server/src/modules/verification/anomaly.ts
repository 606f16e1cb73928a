// Anomaly detection on completed backups, from what the server already knows without reading a
// byte of data: the encrypted size and the per-collection document counts the agent reported.
// A backup far smaller than the ones before it is how an accidental drop or ransomware shows up
// in a backup history, days before retention would delete the good copies.
import { and, desc, eq, lt } from "drizzle-orm";
import { type BackupAnomaly, backups } from "@db/schema";
import { formatBytes } from "@protocol/format";
import type { AppContext } from "../../context";
import { recordAnomaly } from "../backups/records";

/** How many earlier completed backups of the same database the median is taken over. */
export const ANOMALY_BASELINE = 5;

type Measured = { size: number; collections: Record<string, number> | null };

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const totalDocuments = (collections: Record<string, number>) => Object.values(collections).reduce((sum, count) => sum + count, 0);
const plural = (count: number, word: string) => `${count.toLocaleString("en-US")} ${word}${count === 1 ? "" : "s"}`;
const previousBackups = (count: number) => (count === 1 ? "the previous backup" : `the previous ${count} backups`);

/**
 * What is wrong with `current` compared to `previous` (its database's earlier completed backups,
 * newest first): a collection of the latest one gone, a total document count or a size under half
 * the median of up to ANOMALY_BASELINE of them. Null when nothing is, or there is nothing to
 * compare with. The kind is the most specific finding; the detail names every one.
 */
export function detectAnomaly(current: Measured, previous: Measured[]): BackupAnomaly | null {
  const baseline = previous.slice(0, ANOMALY_BASELINE);
  if (baseline.length === 0) return null;
  const findings: BackupAnomaly[] = [];

  const latest = baseline[0]!.collections;
  if (latest && current.collections) {
    const gone = Object.keys(latest)
      .filter((namespace) => !(namespace in current.collections!))
      .sort();
    if (gone.length > 0) {
      const named = gone.slice(0, 5).join(", ") + (gone.length > 5 ? ` and ${gone.length - 5} more` : "");
      findings.push({
        kind: "collection_missing",
        detail: `${gone.length === 1 ? "a collection" : `${gone.length} collections`} of the previous backup ${gone.length === 1 ? "is" : "are"} gone: ${named}.`,
      });
    }
  }

  const counted = baseline.filter((backup) => backup.collections !== null).map((backup) => totalDocuments(backup.collections!));
  if (current.collections && counted.length > 0) {
    const typical = median(counted);
    const now = totalDocuments(current.collections);
    if (now < typical / 2) {
      findings.push({
        kind: "count_drop",
        detail: `${plural(now, "document")}, under half the median of ${plural(Math.round(typical), "document")} of ${previousBackups(counted.length)}.`,
      });
    }
  }

  const typicalSize = median(baseline.map((backup) => backup.size));
  if (current.size < typicalSize / 2) {
    findings.push({
      kind: "size_drop",
      detail: `${formatBytes(current.size)}, under half the median of ${formatBytes(typicalSize)} of ${previousBackups(baseline.length)}.`,
    });
  }

  if (findings.length === 0) return null;
  return { kind: findings[0]!.kind, detail: findings.map((finding) => finding.detail).join(" ") };
}

/**
 * Compares a just-completed backup with the earlier completed backups of its database and, when
 * it is anomalous, records the anomaly on it; returns the anomaly (or null).
 */
export async function flagAnomaly(ctx: AppContext, backup: typeof backups.$inferSelect): Promise<BackupAnomaly | null> {
  const previous = await ctx.db
    .select({ size: backups.size, collections: backups.collections })
    .from(backups)
    .where(
      and(
        eq(backups.organizationId, backup.organizationId),
        eq(backups.databaseName, backup.databaseName),
        eq(backups.status, "completed"),
        lt(backups.createdAt, backup.createdAt),
      ),
    )
    .orderBy(desc(backups.createdAt))
    .limit(ANOMALY_BASELINE);
  const anomaly = detectAnomaly(backup, previous);
  if (anomaly) await recordAnomaly(ctx, backup.id, anomaly);
  return anomaly;
}
