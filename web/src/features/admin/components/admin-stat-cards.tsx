import { Card } from "../../../components/ui/card";
import { Icon, type IconName } from "../../../components/ui/icons";
import type { BackupStats } from "../api/admin-api";

type Counts = { total: number; banned: number; inactive: number };

function StatCard({ label, value, detail, icon }: { label: string; value: string; detail?: string; icon: IconName }) {
  return (
    <Card className="p-5" role="group" aria-label={label}>
      <div className="flex items-center justify-between">
        <p className="text-sm font-medium text-slate-600">{label}</p>
        <Icon name={icon} className="h-5 w-5 text-indigo-500" />
      </div>
      <p className="mt-2 text-3xl font-semibold text-slate-900" data-testid="stat-value">
        {value}
      </p>
      {detail ? <p className="mt-1 text-sm text-slate-500">{detail}</p> : null}
    </Card>
  );
}

/** The four cards of spec 2: Users, Banned, Inactive, and Backups with their total size. */
export function AdminStatCards({ counts, stats }: { counts: Counts; stats: BackupStats | null }) {
  return (
    <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
      <StatCard label="Users" value={String(counts.total)} icon="users" />
      <StatCard label="Banned" value={String(counts.banned)} icon="shield" />
      <StatCard label="Inactive" value={String(counts.inactive)} icon="clock" />
      <StatCard label="Backups" value={stats ? String(stats.totalCount) : "—"} detail={stats?.formattedSize} icon="database" />
    </div>
  );
}
