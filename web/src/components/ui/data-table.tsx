import { type ColumnDef, type RowData, tableFeatures, useTable } from "@tanstack/react-table";
import type { ComponentProps } from "react";
import { cn } from "../../lib/cn";

const plainFeatures = tableFeatures({});

/** A column of a DataTable (no sorting or filtering: the callers hand over rows in display order). */
export type DataTableColumn<Row extends RowData> = ColumnDef<typeof plainFeatures, Row>;

type DataTableProps<Row extends RowData> = {
  columns: DataTableColumn<Row>[];
  data: Row[];
  getRowId: (row: Row) => string;
  /** The table's accessible name. */
  label?: string;
  /** Classes of the scrolling wrapper (borders, background). */
  className?: string;
  /** Attributes and handlers of each row's <tr>; its className replaces the default hover. */
  rowProps?: (row: Row) => ComponentProps<"tr">;
};

/** The column's name shown beside each cell on a phone, where the rows are cards (global.css). */
export function columnLabel(header: unknown, id: string): string {
  return typeof header === "string" ? header : id;
}

/** A TanStack table with the app's header and row styling; on a phone each row is a card. */
export function DataTable<Row extends RowData>({ columns, data, getRowId, label, className, rowProps }: DataTableProps<Row>) {
  const table = useTable({ features: plainFeatures, columns, data, getRowId });
  return (
    <div className={cn("overflow-x-auto", className)}>
      <table className="phone-cards min-w-full divide-y divide-slate-200 text-sm" aria-label={label}>
        <thead className="bg-slate-50">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th key={header.id} scope="col" className="px-4 py-3 text-left text-xs font-semibold uppercase tracking-wide text-slate-600">
                  <table.FlexRender header={header} />
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody className="divide-y divide-slate-100">
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} className="hover:bg-slate-50" {...rowProps?.(row.original)}>
              {row.getAllCells().map((cell) => (
                <td key={cell.id} className="px-4 py-3 align-middle text-slate-700" data-label={columnLabel(cell.column.columnDef.header, cell.column.id)}>
                  <table.FlexRender cell={cell} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
