import { useParams } from "wouter";
import { ArticleEditor } from "../../features/kb/components/article-editor";

export default function AdminKbEditorPage() {
  const { id } = useParams<{ id?: string }>();
  // key: a new article and each existing one get a fresh editor state.
  return <ArticleEditor key={id ?? "new"} articleId={id ?? null} />;
}
