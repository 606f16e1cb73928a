import { useMemo } from "react";
import { Link } from "wouter";
import { Button, buttonClasses } from "../../../components/ui/button";
import { Icon } from "../../../components/ui/icons";
import { toast } from "../../../components/ui/toast-store";
import { formatDate } from "../../../lib/format-date";
import { renderMarkdown } from "../../../lib/markdown";
import { usePageTitle } from "../../../lib/page-title";
import { readErrorStatus } from "../../../lib/api-client";
import type { getArticleRequest } from "../api/kb-api";
import { useArticle } from "../api/get-articles";
import { formatCategoryLabel } from "../utils/kb-format";
import { fillServerAddress } from "../utils/kb-format";
import { MarkdownContent } from "./markdown-content";
import { FoldedTableOfContents, TableOfContents } from "./table-of-contents";

type Article = NonNullable<Awaited<ReturnType<typeof getArticleRequest>>["data"]>;
type State = { status: "loading" } | { status: "missing"; title: string } | { status: "ready"; article: Article };

function ReaderSkeleton() {
  return (
    <div className="mx-auto max-w-7xl px-4 py-10 sm:px-6 lg:px-8" role="status" aria-label="Loading article">
      <div className="h-4 w-40 animate-pulse rounded bg-slate-200" />
      <div className="mt-6 h-10 w-2/3 animate-pulse rounded bg-slate-200" />
      <div className="mt-4 h-4 w-1/3 animate-pulse rounded bg-slate-100" />
      <div className="mt-10 space-y-3">
        {[0, 1, 2, 3, 4, 5].map((i) => (
          <div key={i} className="h-4 animate-pulse rounded bg-slate-100" />
        ))}
      </div>
    </div>
  );
}

async function shareArticle(title: string) {
  const url = window.location.href;
  if (navigator.share) {
    try {
      await navigator.share({ title, url });
      return;
    } catch (error) {
      if ((error as Error).name === "AbortError") return; // the user closed the share sheet
    }
  }
  try {
    await navigator.clipboard.writeText(url);
    toast({ title: "Link copied to clipboard!", variant: "success" });
  } catch {
    toast({ title: "Could not copy the link", description: url, variant: "destructive" });
  }
}

/** The article reader (spec 2, /kb/{slug}). */
export function ArticleReader({ slug, isAdmin }: { slug: string; isAdmin: boolean }) {
  const query = useArticle(slug);
  const state: State = query.isPending
    ? { status: "loading" }
    : query.isError
      ? { status: "missing", title: readErrorStatus(query.error) === 404 ? "Article not found" : "Error loading article" }
      : { status: "ready", article: query.data };

  const article = state.status === "ready" ? state.article : null;
  // Articles say https://your-dbvault-server where the reader's own server goes (install commands).
  const rendered = useMemo(() => (article ? renderMarkdown(fillServerAddress(article.content, window.location.origin)) : null), [article]);
  usePageTitle(article?.title ?? (state.status === "missing" ? state.title : "Knowledge Base"));

  if (state.status === "loading") return <ReaderSkeleton />;
  if (state.status === "missing" || !article || !rendered) {
    return (
      <div className="mx-auto flex max-w-xl flex-col items-center px-4 py-24 text-center">
        <Icon name="book" className="h-12 w-12 text-slate-400" />
        <h1 className="mt-4 text-2xl font-bold text-slate-900">{state.status === "missing" ? state.title : "Article not found"}</h1>
        <p className="mt-2 text-slate-600">The article you're looking for could not be found.</p>
        <Link href="/kb" className={buttonClasses({ className: "mt-8" })}>
          Back to Knowledge Base
        </Link>
      </div>
    );
  }

  return (
    <div className="mx-auto max-w-7xl px-4 py-10 sm:px-6 lg:px-8">
      <div className="flex flex-wrap items-center justify-between gap-3 print:hidden">
        <Link href="/kb" className="inline-flex items-center gap-1 text-sm font-medium text-indigo-600 hover:text-indigo-500">
          <Icon name="arrowLeft" className="h-4 w-4" /> Back to Knowledge Base
        </Link>
        <div className="flex flex-wrap gap-2">
          {isAdmin ? (
            <Link href={`/admin/kb/${article._id}`} className={buttonClasses({ variant: "outline", size: "sm" })}>
              <Icon name="pencil" className="h-4 w-4" /> Edit Article
            </Link>
          ) : null}
          <Button variant="outline" size="sm" onClick={() => window.print()}>
            <Icon name="printer" className="h-4 w-4" /> Print
          </Button>
          <Button variant="outline" size="sm" onClick={() => shareArticle(article.title)}>
            <Icon name="share" className="h-4 w-4" /> Share
          </Button>
        </div>
      </div>

      <div className="mt-8 grid gap-10 lg:grid-cols-[1fr_16rem]">
        <article className="min-w-0">
          <header className="border-b border-slate-200 pb-6">
            <p className="text-sm font-medium text-indigo-700">{formatCategoryLabel(article.category)}</p>
            <h1 className="mt-2 text-4xl font-extrabold tracking-tight text-slate-900">{article.title}</h1>
            <p className="mt-3 text-sm text-slate-500">
              Last updated {formatDate(article.updatedAt)}
              {article.author?.name ? <> · By {article.author.name}</> : null}
            </p>
            {article.tags.length > 0 ? (
              <ul className="mt-4 flex flex-wrap gap-2" aria-label="Tags">
                {article.tags.map((tag) => (
                  <li key={tag}>
                    <Link
                      href={`/kb?tag=${encodeURIComponent(tag)}`}
                      className="rounded-full bg-slate-100 px-2.5 py-1 text-xs text-slate-700 hover:bg-indigo-50 hover:text-indigo-700"
                    >
                      {tag}
                    </Link>
                  </li>
                ))}
              </ul>
            ) : null}
          </header>
          <div className="lg:hidden">
            <FoldedTableOfContents headings={rendered.headings} />
          </div>
          <div className="mt-8">
            <MarkdownContent blocks={rendered.blocks} />
          </div>
          <section aria-labelledby="helpful" className="mt-12 flex flex-wrap items-center gap-3 border-t border-slate-200 pt-6 print:hidden">
            <h2 id="helpful" className="text-sm font-medium text-slate-700">
              Was this article helpful?
            </h2>
            <Button variant="outline" size="sm">
              Yes
            </Button>
            <Button variant="outline" size="sm">
              No
            </Button>
          </section>
        </article>
        <aside className="hidden lg:block">
          <TableOfContents headings={rendered.headings} />
        </aside>
      </div>
    </div>
  );
}
