// The audit log (spec 7, /audit-logs): one query a page and filter, and the filter's action names.
import { useQuery } from "@tanstack/react-query";
import { answerOf, answerOrLog } from "../../../lib/api-client";
import { auditActionsRequest, auditLogsRequest } from "./account-api";

export function useAuditLogPage(page: number, action: string) {
  return useQuery({ queryKey: ["user", "audit-logs", page, action], queryFn: () => answerOf(auditLogsRequest(page, action)) });
}

export function useAuditActionNames() {
  return useQuery({
    queryKey: ["user", "audit-actions"],
    queryFn: () => answerOrLog("Failed to fetch audit actions", auditActionsRequest()),
  });
}
