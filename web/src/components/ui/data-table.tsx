import { type ColumnDef, createSortedRowModel, type RowData, rowSortingFeature, tableFeatures, useTable } from "@tanstack/react-table";
import { type ComponentProps, useMemo } from "react";
import { cn } from "../../lib/cn";
import { Icon } from "./icons";

const features = tableFeatures({ rowSortingFeature, sortedRowModel: createSortedRowModel() });

/** A column of a DataTable. Without `sorting` the table shows the rows in the order handed over. */
export type DataTableColumn<Row extends RowData> = ColumnDef<typeof features, Row>;
/** How to compare two rows in a sortable column (a column's `sortFn`). */
export type DataTableSortFn<Row extends RowData> = NonNullable<DataTableColumn<Row>["sortFn"]>;
export type DataTableSort = { id: string; desc: boolean };

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
  /** Small print and short rows under a header that stays in view (a list inside a card). */
  compact?: boolean;
  /** Columns whose header sits on the right, over cells aligned right. */
  rightAlignedColumns?: string[];
  /**
   * Sorted by the caller's choice: a sortable column's header (one without `enableSorting: false`)
   * is a button asking for `onSortChange(columnId)`, and the rows are sorted by `sort`.
   */
  sorting?: { sort: DataTableSort; onSortChange: (columnId: string) => void };
};

/** The column's name shown beside each cell on a phone, where the rows are cards (global.css). */
export function columnLabel(header: unknown, id: string): string {
  return typeof header === "string" ? header : id;
}

/** A TanStack table with the app's header and row styling; on a phone each row is a card. */
export function DataTable<Row extends RowData>({
  columns,
  data,
  getRowId,
  label,
  className,
  rowProps,
  compact,
  rightAlignedColumns,
  sorting,
}: DataTableProps<Row>) {
  const sort = sorting?.sort;
  const sortingState = useMemo(() => (sort ? [sort] : []), [sort]);
  const table = useTable({ features, columns, data, getRowId, state: { sorting: sortingState } });
  return (
    <div className={cn("overflow-x-auto", className)}>
      <table
        className={cn("phone-cards min-w-full divide-y divide-slate-200", compact ? "text-xs" : "text-sm")}
        aria-label={label}
        data-sortable={sorting ? "" : undefined}
      >
        <thead className={compact ? "sticky top-0 bg-white" : "bg-slate-50"}>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const active = sort?.id === header.column.id;
                return (
                  <th
                    key={header.id}
                    scope="col"
                    aria-sort={active ? (sort?.desc ? "descending" : "ascending") : undefined}
                    className={cn(
                      "px-4 text-xs font-semibold uppercase tracking-wide text-slate-600",
                      compact ? "py-1.5" : "py-3",
                      rightAlignedColumns?.includes(header.column.id) ? "text-right" : "text-left",
                    )}
                  >
                    {sorting && header.column.getCanSort() ? (
                      <button
                        type="button"
                        className="inline-flex items-center gap-1 uppercase hover:text-slate-900"
                        onClick={() => sorting.onSortChange(header.column.id)}
                      >
                        <table.FlexRender header={header} />
                        <Icon
                          name={active && !sort?.desc ? "chevronUp" : "chevronDown"}
                          className={cn("h-3.5 w-3.5", active ? "text-indigo-600" : "text-slate-300")}
                        />
                      </button>
                    ) : (
                      <table.FlexRender header={header} />
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody className="divide-y divide-slate-100">
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} className="hover:bg-slate-50" {...rowProps?.(row.original)}>
              {row.getAllCells().map((cell) => (
                <td
                  key={cell.id}
                  className={cn("px-4 align-middle text-slate-700", compact ? "py-1.5" : "py-3")}
                  data-label={columnLabel(cell.column.columnDef.header, cell.column.id)}
                >
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
