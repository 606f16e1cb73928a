import { useSession } from "../../lib/auth/use-session";
import { DashboardPage } from "../../features/dashboard/components/dashboard-page";
import { usePageTitle } from "../../lib/page-title";

export default function DashboardPageRoute() {
  usePageTitle("Dashboard");
  const { token } = useSession();
  return <DashboardPage token={token} />;
}
