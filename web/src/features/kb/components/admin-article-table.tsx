import { type ComponentProps, useMemo } from "react";
import { Link } from "wouter";
import { Button } from "../../../components/ui/button";
import { DataTable, type DataTableColumn, type DataTableSortFn } from "../../../components/ui/data-table";
import { Icon } from "../../../components/ui/icons";
import { Switch } from "../../../components/ui/switch";
import { cn } from "../../../lib/cn";
import { formatDate } from "../../../lib/format-date";
import type { KbArticle } from "../api/kb-api";
import { type ArticleSort, nextArticleSort, type SortableColumn } from "../utils/article-sorting";
import { formatCategoryLabel } from "../utils/kb-format";

const byText: DataTableSortFn<KbArticle> = (a, b, id) =>
  String(a.getValue(id)).localeCompare(String(b.getValue(id)), "en", { sensitivity: "base", numeric: true });
const byNumber: DataTableSortFn<KbArticle> = (a, b, id) => Number(a.getValue(id)) - Number(b.getValue(id));
const byDate: DataTableSortFn<KbArticle> = (a, b, id) => Date.parse(String(a.getValue(id))) - Date.parse(String(b.getValue(id)));

type Actions = {
  onToggle: (article: KbArticle) => void;
  onDelete: (article: KbArticle) => void;
  busyId: string | null;
};

function buildColumns({ onToggle, onDelete, busyId }: Actions): DataTableColumn<KbArticle>[] {
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
  const sorting = useMemo(
    () => ({ sort, onSortChange: (columnId: string) => onSortChange(nextArticleSort(sort, columnId as SortableColumn)) }),
    [sort, onSortChange],
  );
  return (
    <DataTable
      columns={columns}
      data={articles}
      getRowId={(row) => row._id}
      className="rounded-xl border border-slate-200 bg-white"
      rightAlignedColumns={["actions"]}
      sorting={sorting}
      rowProps={() => ({ "data-testid": "admin-article-row" }) as ComponentProps<"tr">}
    />
  );
}
