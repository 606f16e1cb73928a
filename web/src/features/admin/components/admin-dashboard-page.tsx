import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { buttonClasses } from "../../../components/ui/button";
import { askConfirmation } from "../../../components/ui/confirm-dialog";
import { inputClasses } from "../../../components/ui/field";
import { Icon } from "../../../components/ui/icons";
import { LoadingScreen } from "../../../components/ui/spinner";
import { scrollToElementIfHidden } from "../../../lib/scroll";
import type { AdminAgent } from "../api/admin-api";
import { useAdminDashboard } from "../hooks/use-admin-dashboard";
import { countUsers, filterUsers } from "../utils/admin-users";
import { AdminStatCards } from "./admin-stat-cards";
import { PlanPitrWindows } from "./plan-pitr-windows";
import { StorageReplicaAlert } from "./storage-replica-alert";
import { AdminUserTable } from "./admin-user-table";
import { DeleteUserDialog } from "./delete-user-dialog";
import { UserDetailsCard, UserDetailsPanel } from "./user-details-panel";

/** The Admin Dashboard (spec 2, /admin): cards, searchable user table, and the User Details panel. */
export function AdminDashboardPage() {
  const admin = useAdminDashboard();
  const [search, setSearch] = useState("");
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const visible = useMemo(() => filterUsers(admin.users, search, admin.plans), [admin.users, search, admin.plans]);
  const counts = useMemo(() => countUsers(admin.users), [admin.users]);
  const user = admin.selectedUser;
  const errorRef = useRef<HTMLDivElement>(null);
  const detailsRef = useRef<HTMLDivElement>(null);
  const tappedUserId = useRef<string | null>(null);

  // On a phone the details sit below the whole list: a tapped user's details come into view.
  const selectUser = useCallback(
    (userId: string) => {
      tappedUserId.current = userId;
      admin.selectUser(userId);
    },
    [admin.selectUser],
  );
  useEffect(() => {
    if (!user || tappedUserId.current !== user._id) return;
    tappedUserId.current = null;
    scrollToElementIfHidden(detailsRef.current);
  }, [user]);

  // The message sits at the top (spec 8); bring it into view when an action lower down fails.
  useEffect(() => {
    if (admin.error) errorRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }, [admin.error]);

  const confirmDeleteAgent = async (agent: AdminAgent) => {
    const confirmed = await askConfirmation({
      title: `Delete agent ${agent.name}?`,
      message: "The agent can no longer connect, so its databases are not backed up until it is set up again.",
      confirmLabel: "Delete",
      variant: "destructive",
    });
    if (confirmed) await admin.deleteAgent(agent._id);
  };

  if (admin.loading) return <LoadingScreen label="Loading admin data..." />;

  return (
    <div className="mx-auto max-w-7xl px-4 py-10 sm:px-6 lg:px-8">
      <div className="flex flex-wrap items-center justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold tracking-tight text-slate-900">Admin Dashboard</h1>
          <p className="mt-1 text-slate-600">Manage users, plans, and monitor activity.</p>
        </div>
        <div className="flex flex-wrap gap-3">
          <Link href="/admin/organizations" className={buttonClasses({ variant: "outline" })}>
            Organizations
          </Link>
          <Link href="/admin/kb" className={buttonClasses({ variant: "outline" })}>
            <Icon name="book" className="h-4 w-4" /> Knowledge Base Management
          </Link>
        </div>
      </div>

      <div ref={errorRef} className="scroll-mt-24">
        {admin.error ? (
          <Alert title={admin.error.message} className="mt-6">
            {admin.error.detail}
          </Alert>
        ) : null}
      </div>

      <StorageReplicaAlert />

      <div className="mt-8">
        <AdminStatCards counts={counts} stats={admin.stats} />
      </div>

      <PlanPitrWindows plans={admin.plans} />

      <div className="mt-8 grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <section aria-labelledby="admin-users-heading" className="min-w-0">
          <div className="flex flex-wrap items-center justify-between gap-3">
            <h2 id="admin-users-heading" className="text-lg font-semibold text-slate-900">
              Users
            </h2>
            <div className="w-full sm:w-72">
              <label htmlFor="admin-user-search" className="sr-only">
                Search users
              </label>
              <input
                id="admin-user-search"
                type="search"
                placeholder="Search by name, email, plan"
                value={search}
                onChange={(event) => setSearch(event.target.value)}
                className={inputClasses}
              />
            </div>
          </div>
          <div className="mt-4">
            {visible.length === 0 ? (
              <p className="rounded-xl border border-dashed border-slate-300 p-10 text-center text-slate-600">
                {search.trim() ? "No users match the search." : "No users found."}
              </p>
            ) : (
              <AdminUserTable users={visible} plans={admin.plans} selectedId={user?._id ?? null} onSelect={selectUser} />
            )}
          </div>
        </section>

        <UserDetailsCard ref={detailsRef}>
          {user ? (
            <UserDetailsPanel
              key={user._id}
              user={user}
              plans={admin.plans}
              agents={admin.agents}
              busy={admin.busy}
              onUpdate={(change) => admin.updateUser(user._id, change)}
              onSaveEmail={(email) => admin.saveEmail(user._id, email)}
              onBan={(reason) => admin.setBan(user._id, true, reason)}
              onUnban={() => admin.setBan(user._id, false)}
              onDeleteAgent={(agent) => void confirmDeleteAgent(agent)}
              onDeleteUser={() => setConfirmingDelete(true)}
            />
          ) : null}
        </UserDetailsCard>
      </div>

      <DeleteUserDialog
        open={confirmingDelete && user !== null}
        busy={admin.busy}
        onCancel={() => setConfirmingDelete(false)}
        onConfirm={async () => {
          if (user) await admin.deleteUser(user._id);
          // Closed after success or failure: a failure's message shows at the top of the page.
          setConfirmingDelete(false);
        }}
      />
    </div>
  );
}
