import { useSession } from "../../lib/auth/use-session";
import { DashboardPage } from "../../features/dashboard/components/dashboard-page";
import { useCurrentOrganization } from "../../lib/api/get-organizations";
import { usePageTitle } from "../../lib/page-title";

export default function DashboardPageRoute() {
  usePageTitle("Dashboard");
  const { token } = useSession();
  const { permissions } = useCurrentOrganization();
  return <DashboardPage token={token} can={permissions} />;
}
