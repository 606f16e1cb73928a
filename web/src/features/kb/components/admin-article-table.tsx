import { createSortedRowModel, rowSortingFeature, type ColumnDef, type SortFn, tableFeatures, useTable } from "@tanstack/react-table";
import { useMemo } from "react";
import { Link } from "wouter";
import { Button } from "../../../components/ui/button";
import { columnLabel } from "../../../components/ui/data-table";
import { Icon } from "../../../components/ui/icons";
import { Switch } from "../../../components/ui/switch";
import { cn } from "../../../lib/cn";
import { formatDate } from "../../../lib/format-date";
import type { KbArticle } from "../api/kb-api";
import { type ArticleSort, nextArticleSort, type SortableColumn } from "../utils/article-sorting";
import { formatCategoryLabel } from "../utils/kb-format";

const features = tableFeatures({ rowSortingFeature, sortedRowModel: createSortedRowModel() });

const byText: SortFn<typeof features, KbArticle> = (a, b, id) =>
  String(a.getValue(id)).localeCompare(String(b.getValue(id)), "en", { sensitivity: "base", numeric: true });
const byNumber: SortFn<typeof features, KbArticle> = (a, b, id) => Number(a.getValue(id)) - Number(b.getValue(id));
const byDate: SortFn<typeof features, KbArticle> = (a, b, id) => Date.parse(String(a.getValue(id))) - Date.parse(String(b.getValue(id)));

type Actions = {
  onToggle: (article: KbArticle) => void;
  onDelete: (article: KbArticle) => void;
  busyId: string | null;
};

function buildColumns({ onToggle, onDelete, busyId }: Actions): ColumnDef<typeof features, KbArticle>[] {
  return [
    {
      id: "status",
      header: "Status",
      enableSorting: false,
      cell: ({ row }) => (
        <div className="flex items-center gap-2">
          <Switch
            checked={row.original.isPublished}
            disabled={busyId === row.original._id}
            label={`${row.original.isPublished ? "Unpublish" : "Publish"} ${row.original.title}`}
            onCheckedChange={() => onToggle(row.original)}
          />
          <span className={cn("text-xs font-medium", row.original.isPublished ? "text-emerald-700" : "text-slate-500")}>
            {row.original.isPublished ? "Published" : "Draft"}
          </span>
        </div>
      ),
    },
    { accessorKey: "title", header: "Title", sortFn: byText, cell: ({ row }) => <span className="font-medium text-slate-900">{row.original.title}</span> },
    { accessorKey: "slug", header: "Slug", sortFn: byText, cell: ({ row }) => <code className="text-xs text-slate-600">{row.original.slug}</code> },
    { accessorKey: "category", header: "Category", sortFn: byText, cell: ({ row }) => formatCategoryLabel(row.original.category) },
    {
      id: "tags",
      header: "Tags",
      enableSorting: false,
      cell: ({ row }) => (
        <div className="flex max-w-48 flex-wrap gap-1">
          {row.original.tags.map((tag) => (
            <span key={tag} className="rounded-full bg-slate-100 px-2 py-0.5 text-xs text-slate-600">
              {tag}
            </span>
          ))}
        </div>
      ),
    },
    { accessorKey: "order", header: "Order", sortFn: byNumber },
    { accessorKey: "updatedAt", header: "Updated", sortFn: byDate, cell: ({ row }) => formatDate(row.original.updatedAt) },
    {
      id: "actions",
      header: "Actions",
      enableSorting: false,
      cell: ({ row }) => (
        <div className="flex gap-1 sm:justify-end">
          <a
            href={`/kb/${row.original.slug}`}
            target="_blank"
            rel="noopener"
            className="rounded-md p-2 text-slate-600 hover:bg-slate-100"
            aria-label={`View ${row.original.title}`}
            title="View"
          >
            <Icon name="eye" className="h-4 w-4" />
          </a>
          <Link
            href={`/admin/kb/${row.original._id}`}
            className="rounded-md p-2 text-slate-600 hover:bg-slate-100"
            aria-label={`Edit ${row.original.title}`}
            title="Edit"
          >
            <Icon name="pencil" className="h-4 w-4" />
          </Link>
          <Button
            variant="ghost"
            size="icon"
            className="h-8 w-8 text-red-600 hover:bg-red-50"
            aria-label={`Delete ${row.original.title}`}
            title="Delete"
            onClick={() => onDelete(row.original)}
          >
            <Icon name="trash" className="h-4 w-4" />
          </Button>
        </div>
      ),
    },
  ];
}

type TableProps = Actions & { articles: KbArticle[]; sort: ArticleSort; onSortChange: (sort: ArticleSort) => void };

/** The admin article table (TanStack Table), sorted by the column the admin picked. */
export function AdminArticleTable({ articles, sort, onSortChange, onToggle, onDelete, busyId }: TableProps) {
  const columns = useMemo(() => buildColumns({ onToggle, onDelete, busyId }), [onToggle, onDelete, busyId]);
  const sorting = useMemo(() => [sort], [sort]);
  const table = useTable({ features, columns, data: articles, state: { sorting }, getRowId: (row) => row._id });

  return (
    <div className="overflow-x-auto rounded-xl border border-slate-200 bg-white">
      <table className="phone-cards min-w-full divide-y divide-slate-200 text-sm" data-sortable="">
        <thead className="bg-slate-50">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const sortable = header.column.getCanSort();
                const active = sort.id === header.column.id;
                return (
                  <th
                    key={header.id}
                    scope="col"
                    aria-sort={active ? (sort.desc ? "descending" : "ascending") : undefined}
                    className={cn(
                      "px-4 py-3 text-xs font-semibold uppercase tracking-wide text-slate-600",
                      header.column.id === "actions" ? "text-right" : "text-left",
                    )}
                  >
                    {sortable ? (
                      <button
                        type="button"
                        className="inline-flex items-center gap-1 uppercase hover:text-slate-900"
                        onClick={() => onSortChange(nextArticleSort(sort, header.column.id as SortableColumn))}
                      >
                        <table.FlexRender header={header} />
                        <Icon
                          name={active && !sort.desc ? "chevronUp" : "chevronDown"}
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
            <tr key={row.id} className="hover:bg-slate-50" data-testid="admin-article-row">
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
