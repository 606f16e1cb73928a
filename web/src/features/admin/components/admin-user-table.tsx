import { type ComponentProps, useMemo } from "react";
import { DataTable, type DataTableColumn } from "../../../components/ui/data-table";
import type { AdminPlan, AdminUser } from "../api/admin-api";
import { displayStatusOf, planNameOf } from "../utils/admin-users";
import { UserStatusBadge } from "./user-status-badge";

function buildColumns(plans: AdminPlan[], onSelect: (userId: string) => void, selectedId: string | null): DataTableColumn<AdminUser>[] {
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
    { accessorKey: "role", header: "Role", cell: ({ row }) => (row.original.role === "admin" ? "Admin" : "User") },
    { id: "plan", header: "Plan", cell: ({ row }) => planNameOf(row.original, plans) || "—" },
    { id: "status", header: "Status", cell: ({ row }) => <UserStatusBadge status={displayStatusOf(row.original)} /> },
  ];
}

type Props = { users: AdminUser[]; plans: AdminPlan[]; selectedId: string | null; onSelect: (userId: string) => void };

/** The user table of the Admin Dashboard (TanStack Table); clicking a row selects the user. */
export function AdminUserTable({ users, plans, selectedId, onSelect }: Props) {
  const columns = useMemo(() => buildColumns(plans, onSelect, selectedId), [plans, onSelect, selectedId]);
  return (
    <DataTable
      columns={columns}
      data={users}
      getRowId={(user) => user._id}
      label="Users"
      className="rounded-xl border border-slate-200 bg-white"
      rowProps={(user) => {
        const selected = user._id === selectedId;
        return {
          "data-testid": "admin-user-row",
          "data-selected": selected ? "true" : undefined,
          onClick: () => onSelect(user._id),
          className: selected ? "cursor-pointer bg-indigo-50" : "cursor-pointer hover:bg-slate-50",
        } as ComponentProps<"tr">;
      }}
    />
  );
}
