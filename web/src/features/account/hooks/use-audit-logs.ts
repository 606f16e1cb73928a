import { readErrorMessage } from "../../../lib/api-client";
import type { AuditLogPage } from "../api/account-api";
import { useAuditActionNames, useAuditLogPage } from "../api/get-audit-logs";

type LogsState = { status: "loading" } | { status: "error"; message: string } | { status: "ready"; answer: AuditLogPage };

const NO_ACTIONS: readonly string[] = [];

/** One page of the audit log, loaded again whenever the page number or the action filter changes. */
export function useAuditLogs(page: number, action: string): LogsState {
  const query = useAuditLogPage(page, action);
  if (query.isPending) return { status: "loading" };
  if (query.isError) return { status: "error", message: readErrorMessage(query.error) ?? "An error occurred" };
  return { status: "ready", answer: query.data };
}

/** The action names for the filter; a failure is only logged and leaves 'All Actions' alone. */
export function useAuditActions(): readonly string[] {
  return useAuditActionNames().data ?? NO_ACTIONS;
}
