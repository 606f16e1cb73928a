import type { ComponentProps } from "react";
import { DataTable, type DataTableColumn } from "../../../components/ui/data-table";
import { Spinner } from "../../../components/ui/spinner";
import { formatDateTime } from "../../../lib/format-date";
import { formatBytes } from "@protocol/format";
import type { RetentionChoice, RetentionPreview as Preview } from "../api/settings-api";
import { useRetentionPreview } from "../hooks/use-retention-preview";
import { describeRetentionDecision, summarizePreview } from "../utils/retention-display";

const COLUMNS: DataTableColumn<Preview["backups"][number]>[] = [
  {
    id: "backup",
    header: "Backup",
    cell: ({ row }) => <span className="text-slate-800">{`${row.original.databaseName} · ${formatDateTime(row.original.createdAt)}`}</span>,
  },
  { id: "size", header: "Size", cell: ({ row }) => <span className="text-slate-600">{formatBytes(row.original.size)}</span> },
  {
    id: "retention",
    header: "Retention",
    cell: ({ row }) => <span className={row.original.keep ? "text-emerald-700" : "text-red-700"}>{describeRetentionDecision(row.original)}</span>,
  },
];

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
            <DataTable
              columns={COLUMNS}
              data={preview.backups}
              getRowId={(row) => row.id}
              className="max-h-72 overflow-y-auto"
              compact
              rowProps={(row) => ({ "data-testid": "retention-preview-row", "data-keep": row.keep ? "true" : "false" }) as ComponentProps<"tr">}
            />
          ) : null}
        </>
      ) : null}
    </section>
  );
}
