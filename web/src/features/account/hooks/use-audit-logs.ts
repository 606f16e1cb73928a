import { useEffect, useState } from "react";
import { readErrorMessage } from "../../../lib/api-client";
import { type AuditLogPage, auditActionsRequest, auditLogsRequest } from "../api/account-api";

type LogsState = { status: "loading" } | { status: "error"; message: string } | { status: "ready"; answer: AuditLogPage };

/** One page of the audit log, reloaded whenever the page number or the action filter changes. */
export function useAuditLogs(page: number, action: string): LogsState {
  const [state, setState] = useState<LogsState>({ status: "loading" });
  useEffect(() => {
    let active = true;
    setState({ status: "loading" });
    auditLogsRequest(page, action)
      .then(({ data, error }) => {
        if (!active) return;
        if (error || !data) setState({ status: "error", message: readErrorMessage(error) ?? "An error occurred" });
        else setState({ status: "ready", answer: data });
      })
      .catch(() => active && setState({ status: "error", message: "An error occurred" }));
    return () => {
      active = false;
    };
  }, [page, action]);
  return state;
}

/** The action names for the filter; a failure is only logged and leaves 'All Actions' alone. */
export function useAuditActions(): readonly string[] {
  const [actions, setActions] = useState<readonly string[]>([]);
  useEffect(() => {
    let active = true;
    auditActionsRequest()
      .then(({ data, error }) => {
        if (error || !data) throw error ?? new Error("no actions");
        if (active) setActions(data);
      })
      .catch(() => console.error("Failed to fetch audit actions"));
    return () => {
      active = false;
    };
  }, []);
  return actions;
}
