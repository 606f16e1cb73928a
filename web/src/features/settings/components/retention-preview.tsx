import { Spinner } from "../../../components/ui/spinner";
import { formatDateTime } from "../../../lib/format-date";
import { cn } from "../../../lib/cn";
import { formatBytes } from "@protocol/format";
import type { RetentionChoice } from "../api/settings-api";
import { useRetentionPreview } from "../hooks/use-retention-preview";
import { describeRetentionDecision, summarizePreview } from "../utils/retention-display";

/** Which existing backups a retention choice keeps, before it is saved (the server decides it as retention will). */
export function RetentionPreview({ choice }: { choice: RetentionChoice }) {
  const { preview, error, loading } = useRetentionPreview(choice);
  return (
    <section aria-labelledby="retention-preview-title" className="rounded-lg border border-slate-200" data-testid="retention-preview">
      <div className="flex items-center justify-between gap-2 border-b border-slate-200 bg-slate-50 px-4 py-2">
        <h3 id="retention-preview-title" className="text-sm font-semibold text-slate-800">
          Preview on your backups
        </h3>
        {loading ? <Spinner className="h-3.5 w-3.5" /> : null}
      </div>
      {error ? <p className="px-4 py-3 text-sm text-red-700">{error}</p> : null}
      {preview ? (
        <>
          <p className="px-4 py-2 text-sm text-slate-700" data-testid="retention-preview-summary">
            {summarizePreview(preview)}
          </p>
          {preview.backups.length > 0 ? (
            <div className="max-h-72 overflow-y-auto">
              <table className="min-w-full text-xs">
                <thead className="sticky top-0 bg-white text-left text-slate-500">
                  <tr>
                    <th scope="col" className="px-4 py-1.5 font-medium">
                      Backup
                    </th>
                    <th scope="col" className="px-4 py-1.5 font-medium">
                      Size
                    </th>
                    <th scope="col" className="px-4 py-1.5 font-medium">
                      Retention
                    </th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {preview.backups.map((row) => (
                    <tr key={row.id} data-testid="retention-preview-row" data-keep={row.keep ? "true" : "false"}>
                      <td className="px-4 py-1.5 text-slate-800">
                        {row.databaseName} · {formatDateTime(row.createdAt)}
                      </td>
                      <td className="px-4 py-1.5 text-slate-600">{formatBytes(row.size)}</td>
                      <td className={cn("px-4 py-1.5", row.keep ? "text-emerald-700" : "text-red-700")}>{describeRetentionDecision(row)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
