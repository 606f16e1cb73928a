import { AuditLogsPage } from "../../features/account/components/audit-logs-page";
import { usePageTitle } from "../../lib/page-title";

export default function AuditLogsPageRoute() {
  usePageTitle("Audit Logs");
  return <AuditLogsPage />;
}
