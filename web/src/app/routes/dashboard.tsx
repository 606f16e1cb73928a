import { DashboardPage } from "../../features/dashboard/components/dashboard-page";
import { usePageTitle } from "../../lib/page-title";

export default function DashboardPageRoute() {
  usePageTitle("Dashboard");
  return <DashboardPage />;
}
