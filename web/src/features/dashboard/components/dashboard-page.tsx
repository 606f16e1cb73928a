import { useAtom } from "jotai";
import { useCallback, useEffect, useMemo, useState } from "react";
import { useLocation, useSearch } from "wouter";
import { Card } from "../../../components/ui/card";
import { askConfirmation } from "../../../components/ui/confirm-dialog";
import { LoadingScreen } from "../../../components/ui/spinner";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { useDeleteBackup, useResolveAnomaly, useVerifyBackup } from "../api/backup-mutations";
import type { Backup } from "../api/dashboard-api";
import { useBackupDownload } from "../hooks/use-backup-download";
import { useDashboardData, useDatabaseBackups } from "../hooks/use-dashboard-data";
import { useRealtimeEvents } from "../hooks/use-realtime-events";
import { useRestoreHistory } from "../hooks/use-restore-history";
import { useSystemStatus } from "../hooks/use-system-status";
import { useTriggerBackup } from "../hooks/use-trigger-backup";
import { dashboardTabAtom, selectedDatabaseAtom } from "../stores/dashboard-atoms";
import { useAgentReleases } from "../../../lib/agent-install";
import { ONBOARDING_REFRESH_MS, SYSTEM_STATUS_REFRESH_MS } from "../hooks/use-system-status";
import { chooseDatabase, explainManualLimit, explainTriggerBlocked } from "../utils/database-selection";
import { useManualLimitEnd } from "../hooks/use-manual-limit-end";
import { isOnboarding, listOnboardingSteps } from "../utils/onboarding";
import { OnboardingChecklist } from "./onboarding-checklist";
import { useOnboardingHidden } from "../hooks/use-onboarding-hidden";
import { useSession } from "../../../lib/auth/use-session";
import type { Permissions } from "../../../lib/organization/permissions";
import { BackupSizeChart } from "./backup-size-chart";
import { BackupsTable } from "./backups-table";
import { BackupFilterBar, BackupPager } from "./backup-finder";
import { BackupDetailsDialog } from "./backup-details-dialog";
import { useFoundBackups } from "../api/get-backups";
import { type BackupFilters, backupFiltersSearch, isFiltered, readBackupFilters } from "../utils/backup-filters";
import { DashboardHeader } from "./dashboard-header";
import { DashboardTabs } from "./dashboard-tabs";
import { RestoreDialog } from "./restore-dialog";
import { describeMissingKey, describeRestoringReader, identityRecipientOf } from "../utils/key-warning";
import { RestoreHistoryPanel } from "./restore-history-panel";
import { NextBackups } from "./next-backups";
import { PitrCoverageLines } from "./pitr-coverage-lines";
import { SummaryCards } from "./summary-cards";
import { SystemStatusCard } from "./system-status-card";

/**
 * /dashboard (spec 2): the organization's backups, restores and agents. `token` opens the realtime
 * channel; `can` hides what the current role may not do (the server refuses it anyway).
 */
export function DashboardPage({ token, can }: { token: string | null; can: Permissions }) {
  const { user } = useSession();
  const { backups, summary, plan, databases, reloadDatabases } = useDashboardData();
  const history = useRestoreHistory();
  const [onboarding, setOnboarding] = useState(false);
  const system = useSystemStatus(onboarding ? ONBOARDING_REFRESH_MS : SYSTEM_STATUS_REFRESH_MS);
  const releases = useAgentReleases();
  const [selected, setSelected] = useAtom(selectedDatabaseAtom);
  const [tab, setTab] = useAtom(dashboardTabAtom);
  const [restoring, setRestoring] = useState<Backup | null>(null);
  useRealtimeEvents(token);
  const { trigger, busy } = useTriggerBackup();
  const { download, downloadingId } = useBackupDownload();
  const chartBackups = useDatabaseBackups(selected);
  // The backups tab's filters, page and open backup live in the URL: a filtered view is a link.
  const search = useSearch();
  const [, setLocation] = useLocation();
  const filters = useMemo(() => readBackupFilters(search), [search]);
  const found = useFoundBackups(filters);
  const foundBackups = found.data ?? (found.isError ? [] : null);
  const showFilters = useCallback((next: BackupFilters) => setLocation(`/dashboard${backupFiltersSearch(next)}`), [setLocation]);
  const detailsHref = useCallback((backup: Backup) => `/dashboard${backupFiltersSearch({ ...filters, backup: backup.id })}`, [filters]);

  useEffect(() => {
    if (databases) setSelected((current) => chooseDatabase(current, databases));
  }, [databases, setSelected]);

  const agents = useMemo(() => system.status?.agents ?? [], [system.status]);
  // A newly set-up agent brings its databases: look again when the agents change.
  const agentsKey = agents.map((agent) => `${agent.id}:${agent.status}`).join(",");
  useEffect(() => {
    if (agentsKey) void reloadDatabases();
  }, [agentsKey, reloadDatabases]);

  // A Viewer cannot restore: no test restore step to leave "to do" for ever.
  const steps = listOnboardingSteps({
    agents,
    databases,
    backups: backups ?? [],
    restores: history.restores ?? [],
    install: system.status?.install,
  }).filter((step) => can.operate || step.id !== "restore");
  const [checklistHidden, hideChecklist] = useOnboardingHidden(user?.id ?? null);
  const onboardingNow = system.status !== null && backups !== null && isOnboarding(steps, checklistHidden);
  useEffect(() => setOnboarding(onboardingNow), [onboardingNow]);
  const manualLimitEnds = useManualLimitEnd(selected, backups, plan);
  const blockedReason =
    explainTriggerBlocked(selected, databases, system.status?.agents ?? null) ?? (plan && manualLimitEnds ? explainManualLimit(plan, manualLimitEnds) : null);

  const { mutate: deleteBackup } = useDeleteBackup();
  const onDelete = useCallback(
    async (backup: Backup) => {
      const confirmed = await askConfirmation({ title: "Delete backup", message: "Are you sure you want to delete this backup?", confirmLabel: "Delete" });
      if (!confirmed) return;
      deleteBackup(backup.id, {
        onSuccess: () => toast({ title: "Backup deleted successfully", variant: "success" }),
        // The server says why (a restore reading it, Protect backups and until when).
        onError: (error) => toast({ title: "Failed to delete backup", description: readErrorMessage(error) ?? undefined, variant: "destructive" }),
      });
    },
    [deleteBackup],
  );

  const { mutate: verifyBackup } = useVerifyBackup();
  const onVerify = useCallback(
    (backup: Backup) =>
      verifyBackup(backup.id, {
        onSuccess: (data) => toast({ title: data.message, variant: "success" }),
        onError: (error) => toast({ title: "Could not ask for a verification", description: readErrorMessage(error) ?? undefined, variant: "destructive" }),
      }),
    [verifyBackup],
  );

  const { mutate: resolveAnomaly } = useResolveAnomaly();
  const onResolveAnomaly = useCallback(
    async (backup: Backup) => {
      const confirmed = await askConfirmation({
        title: "Mark as expected",
        message: `Did the data of "${backup.databaseName}" really shrink? Retention then stops keeping the last good backup from before this one.`,
        confirmLabel: "Mark as expected",
      });
      if (!confirmed) return;
      resolveAnomaly(backup.id, {
        onError: (error) =>
          toast({ title: "Could not mark the backup as expected", description: readErrorMessage(error) ?? undefined, variant: "destructive" }),
      });
    },
    [resolveAnomaly],
  );

  const onRestored = useCallback(() => {
    setRestoring(null);
    setTab("restores");
  }, [setTab]);

  return (
    <div className="mx-auto max-w-7xl space-y-6 px-4 py-10 sm:px-6 lg:px-8">
      <DashboardHeader
        databases={databases}
        selected={selected}
        onSelect={setSelected}
        onTrigger={() => trigger(selected)}
        busy={busy}
        blockedReason={blockedReason}
        canTrigger={can.operate}
      />
      <SummaryCards summary={summary} plan={plan} />
      <NextBackups databases={databases} />
      <PitrCoverageLines databases={databases} />
      <div className="grid gap-6 lg:grid-cols-3">
        <div className="min-w-0 lg:col-span-2">
          {onboardingNow ? (
            <OnboardingChecklist
              steps={steps}
              releases={releases}
              origin={window.location.origin}
              installMark={system.status?.install.mark ?? null}
              onHide={hideChecklist}
            />
          ) : (
            <BackupSizeChart databaseName={selected} backups={chartBackups} />
          )}
        </div>
        <SystemStatusCard status={system.status} checking={system.checking} onCheck={() => void system.checkService()} />
      </div>
      <Card>
        <DashboardTabs tab={tab} onChange={setTab}>
          {tab === "backups" ? (
            <div>
              <h2 className="p-5 text-lg font-semibold text-slate-900">Recent Backups</h2>
              <BackupFilterBar filters={filters} onChange={showFilters} />
              {foundBackups === null ? (
                <LoadingScreen label="Loading backups..." />
              ) : (
                <BackupsTable
                  backups={foundBackups}
                  filtered={isFiltered(filters)}
                  detailsHref={detailsHref}
                  onDownload={download}
                  onRestore={setRestoring}
                  onDelete={onDelete}
                  onVerify={onVerify}
                  onResolveAnomaly={onResolveAnomaly}
                  downloadingId={downloadingId}
                  agents={agents}
                  can={can}
                />
              )}
              <BackupPager filters={filters} onChange={showFilters} shown={foundBackups?.length ?? 0} loading={found.isFetching} />
            </div>
          ) : (
            <RestoreHistoryPanel restores={history.restores} error={history.error} loading={history.loading} onRefresh={() => void history.reload()} />
          )}
        </DashboardTabs>
      </Card>
      <BackupDetailsDialog backupId={filters.backup} onClose={() => showFilters({ ...filters, backup: "" })} />
      <RestoreDialog
        backup={restoring}
        onClose={() => setRestoring(null)}
        onRestored={onRestored}
        keyWarning={restoring ? describeMissingKey(restoring, databases, agents) : null}
        readerNote={restoring ? describeRestoringReader(restoring, databases, agents) : null}
        identityRecipient={restoring ? identityRecipientOf(restoring, databases, agents) : null}
      />
    </div>
  );
}
