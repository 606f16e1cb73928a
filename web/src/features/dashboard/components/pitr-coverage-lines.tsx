// One line per database with point-in-time recovery on: since when it can be restored to any
// second and how far behind now (issue 25 §2), or the lag or gap to look at. Refreshed with the
// heartbeats that carry the lag.
import { useQuery } from "@tanstack/react-query";
import { Card } from "../../../components/ui/card";
import { answerOrLog } from "../../../lib/api-client";
import { type DatabaseEntry, pitrTimelineRequest } from "../api/dashboard-api";
import { describePitrCoverage } from "../utils/pitr-coverage";

const REFRESH_MS = 15_000;

function PitrCoverageLine({ database }: { database: DatabaseEntry }) {
  const { data } = useQuery({
    queryKey: ["pitr-timeline", database.id],
    queryFn: () => answerOrLog("failed to fetch the point-in-time timeline", pitrTimelineRequest(database.id)),
    refetchInterval: REFRESH_MS,
  });
  if (!data) return null;
  const { text, warning } = describePitrCoverage(data, Date.now());
  return (
    <li className="py-2 text-sm" data-testid={`pitr-coverage-${database.name}`}>
      <span className="font-medium text-slate-900">{database.name}</span> <span className="text-slate-600">{text}</span>
      {warning ? (
        <p className="mt-1 text-amber-700" role="alert">
          {warning}
        </p>
      ) : null}
    </li>
  );
}

export function PitrCoverageLines({ databases }: { databases: DatabaseEntry[] | null }) {
  const shipped = (databases ?? []).filter((database) => database.pitrEnabled && database.isActive);
  if (shipped.length === 0) return null;
  return (
    <Card className="px-5 py-3">
      <ul aria-label="Point-in-time recovery" className="divide-y divide-slate-100">
        {shipped.map((database) => (
          <PitrCoverageLine key={database.id} database={database} />
        ))}
      </ul>
    </Card>
  );
}
