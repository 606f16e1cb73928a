// What runs next (issue 44): each active database's next scheduled backup, and why the last one
// was missed (agent offline, limit reached, window passed), from the databases API.
import { Card } from "../../../components/ui/card";
import { formatDateTime } from "../../../lib/format-date";
import type { DatabaseEntry } from "../api/dashboard-api";

export function NextBackups({ databases }: { databases: DatabaseEntry[] | null }) {
  const active = (databases ?? []).filter((database) => database.isActive);
  if (active.length === 0) return null;
  return (
    <Card className="px-5 py-3">
      <ul aria-label="Next scheduled backups" className="divide-y divide-slate-100">
        {active.map((database) => (
          <li key={database.id} className="py-2 text-sm">
            <span className="font-medium text-slate-900">{database.name}</span>{" "}
            <span className="text-slate-600">next backup {database.nextBackupAt ? formatDateTime(database.nextBackupAt) : "when its agent connects"}</span>
            {database.missedBackup ? (
              <p className="mt-1 text-amber-800">
                Missed {formatDateTime(database.missedBackup.at)}: {database.missedBackup.reason}
              </p>
            ) : null}
          </li>
        ))}
      </ul>
    </Card>
  );
}
