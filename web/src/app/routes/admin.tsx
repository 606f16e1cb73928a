import { AdminDashboardPage } from "../../features/admin/components/admin-dashboard-page";
import { usePageTitle } from "../../lib/page-title";

export default function AdminDashboardPageRoute() {
  usePageTitle("Admin Dashboard");
  return <AdminDashboardPage />;
}
