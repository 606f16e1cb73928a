import { useId } from "react";
import { Card } from "../../../components/ui/card";
import { formatDateTime } from "../../../lib/format-date";
import type { Backup } from "../api/dashboard-api";
import { formatBytes } from "../utils/dashboard-format";
import { buildSizeChart } from "../utils/size-chart";

const WIDTH = 600;
const HEIGHT = 140;
const PAD = 8;

/** Backup sizes over time for one database: a plain SVG line, its points titled for hover and readers. */
export function BackupSizeChart({ databaseName, backups }: { databaseName: string; backups: Backup[] }) {
  const titleId = useId();
  const chart = buildSizeChart(backups, WIDTH - PAD * 2, HEIGHT - PAD * 2);
  return (
    <Card className="h-full p-5">
      <div className="flex items-baseline justify-between gap-4">
        <h3 id={titleId} className="text-sm font-medium text-slate-600">
          Backup size over time: {databaseName}
        </h3>
        {chart.points.length > 0 ? <span className="text-xs text-slate-500">max {formatBytes(chart.maxSize)}</span> : null}
      </div>
      {chart.points.length === 0 ? (
        <p className="mt-4 text-sm text-slate-500">No completed backups of this database yet.</p>
      ) : (
        <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={titleId} className="mt-3 h-auto w-full">
          <line x1={PAD} y1={HEIGHT - PAD} x2={WIDTH - PAD} y2={HEIGHT - PAD} stroke="#e2e8f0" />
          <g transform={`translate(${PAD} ${PAD})`}>
            {chart.points.length > 1 ? <path d={chart.path} fill="none" stroke="#4f46e5" strokeWidth="2" vectorEffect="non-scaling-stroke" /> : null}
            {chart.points.map((point) => (
              <circle key={point.at} cx={point.x} cy={point.y} r="3.5" fill="#4f46e5">
                <title>{`${formatDateTime(point.at)}: ${formatBytes(point.size)}`}</title>
              </circle>
            ))}
          </g>
        </svg>
      )}
      {chart.points.length > 0 ? (
        <div className="mt-1 flex justify-between text-xs text-slate-500">
          <span>{formatDateTime(chart.points[0]!.at)}</span>
          {chart.points.length > 1 ? <span>{formatDateTime(chart.points.at(-1)!.at)}</span> : null}
        </div>
      ) : null}
    </Card>
  );
}
