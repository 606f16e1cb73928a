import { Card } from "../../../components/ui/card";
import { Icon } from "../../../components/ui/icons";
import { ProgressBar } from "../../../components/ui/progress-bar";
import { formatDateTime } from "../../../lib/format-date";
import { formatPercent } from "../../../lib/format-percent";
import type { BackupSummary, UserPlan } from "../api/dashboard-api";
import { formatBytes, storageBarTone, storagePercent } from "../utils/dashboard-format";

function SummaryCard({ title, icon, children }: { title: string; icon: Parameters<typeof Icon>[0]["name"]; children: React.ReactNode }) {
  return (
    <Card className="p-5">
      <div className="flex items-center justify-between">
        <h3 className="text-sm font-medium text-slate-600">{title}</h3>
        <Icon name={icon} className="h-5 w-5 text-indigo-600" />
      </div>
      <div className="mt-3">{children}</div>
    </Card>
  );
}

/** Total Backups, Storage Used and Success Rate (spec 2). */
export function SummaryCards({ summary, plan }: { summary: BackupSummary | null; plan: UserPlan | null }) {
  const used = plan?.storageUsed ?? 0;
  const limit = plan?.storageLimit ?? 0;
  const percent = storagePercent(used, limit);
  return (
    <section aria-label="Summary" className="grid gap-4 md:grid-cols-3">
      <SummaryCard title="Total Backups" icon="database">
        <p className="text-3xl font-bold text-slate-900" data-testid="total-backups">
          {summary?.totalCount ?? 0}
        </p>
        <p className="mt-1 text-sm text-slate-500">Last backup: {summary?.lastBackupAt ? formatDateTime(summary.lastBackupAt) : "Never"}</p>
      </SummaryCard>
      <SummaryCard title="Storage Used" icon="cloud">
        <p className="text-3xl font-bold text-slate-900">{formatBytes(used)}</p>
        <p className="mt-1 text-sm text-slate-500">
          of {formatBytes(limit)} ({formatPercent(percent)})
        </p>
        <ProgressBar value={percent} label="Storage used" tone={storageBarTone(percent)} className="mt-3" />
      </SummaryCard>
      <SummaryCard title="Success Rate" icon="check">
        {/* No rate before the first backup: "0%" would read as a failure. */}
        <p className="text-3xl font-bold text-slate-900" data-testid="success-rate">
          {summary && summary.completedCount + summary.failedCount > 0 ? formatPercent(summary.successRate) : "—"}
        </p>
        <p className="mt-1 text-sm text-slate-500">
          {summary?.failedCount ?? 0} {summary?.failedCount === 1 ? "failure" : "failures"} in total
        </p>
      </SummaryCard>
    </section>
  );
}
