import { BannedView } from "../../features/auth/components/banned-view";
import { usePageTitle } from "../../lib/page-title";

export default function BannedPage() {
  usePageTitle("Account Suspended");
  return <BannedView />;
}
