import { AdminOrganizationsPage } from "../../features/admin/components/admin-organizations-page";
import { usePageTitle } from "../../lib/page-title";

export default function AdminOrganizationsRoute() {
  usePageTitle("Organizations");
  return <AdminOrganizationsPage />;
}
