import { useCallback, useEffect, useMemo, useState } from "react";
import { Link } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { buttonClasses } from "../../../components/ui/button";
import { askConfirmation } from "../../../components/ui/confirm-dialog";
import { inputClasses } from "../../../components/ui/field";
import { Icon } from "../../../components/ui/icons";
import { LoadingScreen } from "../../../components/ui/spinner";
import { toast } from "../../../components/ui/toast-store";
import { KB_CATEGORIES } from "../../../config/constants";
import { cn } from "../../../lib/cn";
import { useDeleteArticle, usePublishArticle } from "../api/article-mutations";
import { useAllArticles } from "../api/get-articles";
import type { KbArticle } from "../api/kb-api";
import { type ArticleSort, DEFAULT_ARTICLE_SORT } from "../utils/article-sorting";
import { formatCategoryLabel } from "../utils/kb-format";
import { AdminArticleTable } from "./admin-article-table";
import { Select } from "../../../components/ui/select";

type StatusFilter = "all" | "published" | "draft";

/** Knowledge Base Management (spec 2, /admin/kb). */
export function AdminArticleList() {
  const query = useAllArticles();
  const articles = query.data ?? null;
  const loadError = query.isError && !query.data;
  const [search, setSearch] = useState("");
  const [category, setCategory] = useState("all");
  const [status, setStatus] = useState<StatusFilter>("all");
  const [sort, setSort] = useState<ArticleSort>(DEFAULT_ARTICLE_SORT);
  const publish = usePublishArticle();
  const { mutate: setPublished } = publish;
  const busyId = publish.isPending ? (publish.variables?.id ?? null) : null;
  const { mutate: deleteArticle } = useDeleteArticle();

  useEffect(() => {
    if (loadError) toast({ title: "Failed to load articles", variant: "destructive" });
  }, [loadError]);

  const onToggle = useCallback(
    (article: KbArticle) => {
      const isPublished = !article.isPublished;
      setPublished(
        { id: article._id, isPublished },
        {
          onSuccess: () => toast({ title: isPublished ? "Article published successfully" : "Article unpublished successfully", variant: "success" }),
          onError: () => toast({ title: "Failed to update article status", variant: "destructive" }),
        },
      );
    },
    [setPublished],
  );

  const onDelete = useCallback(
    async (article: KbArticle) => {
      const confirmed = await askConfirmation({
        title: "Delete article",
        message: "Are you sure you want to delete this article? This action cannot be undone.",
        confirmLabel: "Delete",
      });
      if (!confirmed) return;
      deleteArticle(article._id, {
        onSuccess: () => toast({ title: "Article deleted successfully", variant: "success" }),
        onError: () => toast({ title: "Failed to delete article", variant: "destructive" }),
      });
    },
    [deleteArticle],
  );

  const visible = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return (articles ?? []).filter((article) => {
      if (category !== "all" && article.category !== category) return false;
      if (status === "published" && !article.isPublished) return false;
      if (status === "draft" && article.isPublished) return false;
      if (!needle) return true;
      return [article.title, article.slug, ...article.tags].some((text) => text.toLowerCase().includes(needle));
    });
  }, [articles, search, category, status]);

  return (
    <div className="mx-auto max-w-7xl px-4 py-10 sm:px-6 lg:px-8">
      <div className="flex flex-wrap items-center justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold tracking-tight text-slate-900">Knowledge Base Management</h1>
          <p className="mt-1 text-slate-600">Write, publish and organise help articles.</p>
        </div>
        <Link href="/admin/kb/new" className={buttonClasses()}>
          <Icon name="plus" className="h-4 w-4" /> New Article
        </Link>
      </div>

      <div className="mt-8 grid gap-3 sm:grid-cols-[1fr_12rem_12rem]">
        <div>
          <label htmlFor="admin-kb-search" className="sr-only">
            Search articles
          </label>
          <input
            id="admin-kb-search"
            type="search"
            placeholder="Search articles..."
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            className={inputClasses}
          />
        </div>
        <div>
          <label htmlFor="admin-kb-category" className="sr-only">
            Category
          </label>
          <Select id="admin-kb-category" value={category} onChange={(e) => setCategory(e.target.value)}>
            <option value="all">All categories</option>
            {KB_CATEGORIES.map((id) => (
              <option key={id} value={id}>
                {formatCategoryLabel(id)}
              </option>
            ))}
          </Select>
        </div>
        <div>
          <label htmlFor="admin-kb-status" className="sr-only">
            Status
          </label>
          <Select id="admin-kb-status" value={status} onChange={(e) => setStatus(e.target.value as StatusFilter)}>
            <option value="all">All statuses</option>
            <option value="published">Published</option>
            <option value="draft">Draft</option>
          </Select>
        </div>
      </div>

      <div className={cn("mt-6")}>
        {articles === null && !loadError ? (
          <LoadingScreen label="Loading articles..." />
        ) : loadError ? (
          <Alert>Failed to load articles</Alert>
        ) : visible.length === 0 ? (
          <p className="rounded-xl border border-dashed border-slate-300 p-12 text-center text-slate-600">No articles found</p>
        ) : (
          <AdminArticleTable articles={visible} sort={sort} onSortChange={setSort} onToggle={onToggle} onDelete={onDelete} busyId={busyId} />
        )}
      </div>
    </div>
  );
}
