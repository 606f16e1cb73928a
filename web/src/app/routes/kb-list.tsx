import { KbListView } from "../../features/kb/components/kb-list-view";
import { usePageTitle } from "../../lib/page-title";

export default function KbListPage() {
  usePageTitle("Knowledge Base");
  return <KbListView />;
}
