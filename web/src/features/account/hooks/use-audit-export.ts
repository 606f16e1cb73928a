// The audit log page's Export: the server writes the file (CSV quoting, the filter, who may),
// the browser saves it under the name the server gives.
import { useCallback, useState } from "react";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { saveFile } from "../../../lib/browser-download";
import { auditExportRequest } from "../api/account-api";

export type AuditExportFormat = "csv" | "json";

export function useAuditExport() {
  const [exporting, setExporting] = useState<AuditExportFormat | null>(null);
  const exportLog = useCallback(async (format: AuditExportFormat, action: string) => {
    setExporting(format);
    try {
      const { data, error, response } = await auditExportRequest(format, action);
      if (error || data === null || data === undefined) throw error ?? new Error("empty export");
      // Eden parses a JSON answer: write it back as the server formatted it.
      const text = typeof data === "string" ? data : `${JSON.stringify(data, null, 2)}\n`;
      const named = /filename="([^"]+)"/.exec(response?.headers.get("content-disposition") ?? "")?.[1];
      const bytes = new TextEncoder().encode(text);
      saveFile([bytes.buffer as ArrayBuffer], named ?? `audit-log.${format}`, format === "csv" ? "text/csv" : "application/json");
    } catch (error) {
      toast({ title: "Could not export the audit log", description: readErrorMessage(error) ?? undefined, variant: "destructive" });
    } finally {
      setExporting(null);
    }
  }, []);
  return { exportLog, exporting };
}
