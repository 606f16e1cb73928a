import { useParams } from "wouter";
import { useSession } from "../../lib/auth/use-session";
import { ArticleReader } from "../../features/kb/components/article-reader";

export default function KbArticlePage() {
  const { slug } = useParams<{ slug: string }>();
  const { isAdmin } = useSession();
  return <ArticleReader slug={slug} isAdmin={isAdmin} />;
}
