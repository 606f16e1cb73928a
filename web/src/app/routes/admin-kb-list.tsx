import { AdminArticleList } from "../../features/kb/components/admin-article-list";
import { usePageTitle } from "../../lib/page-title";

export default function AdminKbListPage() {
  usePageTitle("Knowledge Base Management");
  return <AdminArticleList />;
}
