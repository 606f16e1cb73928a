import { type ColumnDef, tableFeatures, useTable } from "@tanstack/react-table";
import { useMemo } from "react";
import { cn } from "../../../lib/cn";
import type { AdminPlan, AdminUser } from "../api/admin-api";
import { displayStatusOf, planNameOf } from "../utils/admin-users";
import { UserStatusBadge } from "./user-status-badge";

const features = tableFeatures({});

function buildColumns(plans: AdminPlan[], onSelect: (userId: string) => void, selectedId: string | null): ColumnDef<typeof features, AdminUser>[] {
  return [
    {
      accessorKey: "name",
      header: "Name",
      // The name is a button so a keyboard user can select the row too; a click anywhere on the
      // row does the same for the mouse.
      cell: ({ row }) => (
        <button
          type="button"
          aria-pressed={row.original._id === selectedId}
          className="text-left font-medium text-slate-900 hover:text-indigo-700"
          onClick={(event) => {
            event.stopPropagation();
            onSelect(row.original._id);
          }}
        >
          {row.original.name || "(no name)"}
        </button>
      ),
    },
    { accessorKey: "email", header: "Email" },
    { accessorKey: "role", header: "Role", cell: ({ row }) => <span className="capitalize">{row.original.role}</span> },
    { id: "plan", header: "Plan", cell: ({ row }) => planNameOf(row.original, plans) || "—" },
    { id: "status", header: "Status", cell: ({ row }) => <UserStatusBadge status={displayStatusOf(row.original)} /> },
  ];
}

type Props = { users: AdminUser[]; plans: AdminPlan[]; selectedId: string | null; onSelect: (userId: string) => void };

/** The user table of the Admin Dashboard (TanStack Table); clicking a row selects the user. */
export function AdminUserTable({ users, plans, selectedId, onSelect }: Props) {
  const columns = useMemo(() => buildColumns(plans, onSelect, selectedId), [plans, onSelect, selectedId]);
  const table = useTable({ features, columns, data: users, getRowId: (row) => row._id });

  return (
    <div className="overflow-x-auto rounded-xl border border-slate-200 bg-white">
      <table className="min-w-full divide-y divide-slate-200 text-sm" aria-label="Users">
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
          {table.getRowModel().rows.map((row) => {
            const selected = row.original._id === selectedId;
            return (
              <tr
                key={row.id}
                data-testid="admin-user-row"
                data-selected={selected ? "true" : undefined}
                onClick={() => onSelect(row.original._id)}
                className={cn("cursor-pointer", selected ? "bg-indigo-50" : "hover:bg-slate-50")}
              >
                {row.getAllCells().map((cell) => (
                  <td key={cell.id} className="px-4 py-3 align-middle text-slate-700">
                    <table.FlexRender cell={cell} />
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
