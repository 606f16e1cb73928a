import { type FormEvent, useEffect, useState } from "react";
import { Link, useLocation, useSearch } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { inputClasses } from "../../../components/ui/field";
import { Icon } from "../../../components/ui/icons";
import type { KbCategory } from "../../../config/constants";
import { cn } from "../../../lib/cn";
import { formatDate } from "../../../lib/format-date";
import { scrollToElement } from "../../../lib/scroll";
import { SCROLL_OFFSET_PX } from "../../../config/constants";
import type { KbListAnswer } from "../api/kb-api";
import { useArticleList, useKbCategories, useKbTags } from "../api/get-articles";
import { CATEGORY_ICONS, formatCategoryLabel } from "../utils/kb-format";
import { KbPagination } from "./kb-pagination";

type Filters = { search: string; category: string; tag: string; page: number };

function readFilters(search: string): Filters {
  const params = new URLSearchParams(search);
  const page = Number.parseInt(params.get("page") ?? "1", 10);
  return {
    search: params.get("search") ?? "",
    category: params.get("category") ?? "",
    tag: params.get("tag") ?? "",
    page: Number.isFinite(page) && page > 0 ? page : 1,
  };
}

function toQueryString(filters: Filters): string {
  const params = new URLSearchParams();
  if (filters.search) params.set("search", filters.search);
  if (filters.category) params.set("category", filters.category);
  if (filters.tag) params.set("tag", filters.tag);
  if (filters.page > 1) params.set("page", String(filters.page));
  const text = params.toString();
  return text ? `/kb?${text}` : "/kb";
}

const QUICK_CARDS: { title: string; text: string; icon: "rocket" | "wrench" | "shield"; category: KbCategory }[] = [
  { title: "Getting Started", text: "Set up your first backup in minutes", icon: "rocket", category: "getting-started" },
  { title: "Troubleshooting", text: "Fix failed backups and restores", icon: "wrench", category: "troubleshooting" },
  { title: "Security Guide", text: "Encryption, keys and zero knowledge", icon: "shield", category: "security" },
];

type ListState = { status: "loading" } | { status: "error" } | { status: "ready"; answer: KbListAnswer };

/** Brings the top of the results into view when it is off screen, once the new list has rendered. */
function showResultsTop() {
  requestAnimationFrame(() => {
    const results = document.getElementById("kb-results")?.parentElement;
    if (!results) return;
    const top = results.getBoundingClientRect().top;
    if (top < SCROLL_OFFSET_PX || top > window.innerHeight * 0.75) scrollToElement(results);
  });
}

/** No categories or tags (yet, or their fetch failed: the sidebar stays empty). */
const NONE: never[] = [];

/** The knowledge base list (spec 2, /kb): search, quick cards, sidebar, filter chips, pagination. */
export function KbListView() {
  const search = useSearch();
  const [, setLocation] = useLocation();
  const filters = readFilters(search);
  const [query, setQuery] = useState(filters.search);

  const [filtersOpen, setFiltersOpen] = useState(false);

  const apply = (changes: Partial<Filters>) => {
    setLocation(toQueryString({ ...filters, page: 1, ...changes }));
    // A filter chosen away from the list (a phone's filter panel above it) shows its effect.
    showResultsTop();
  };

  useEffect(() => setQuery(filters.search), [filters.search]);

  const categories = useKbCategories().data ?? NONE;
  const tags = useKbTags().data ?? NONE;
  const articles = useArticleList({
    search: filters.search || undefined,
    category: filters.category || undefined,
    tag: filters.tag || undefined,
    page: filters.page,
  });
  const list: ListState = articles.isPending ? { status: "loading" } : articles.isError ? { status: "error" } : { status: "ready", answer: articles.data };

  const onSearch = (event: FormEvent) => {
    event.preventDefault();
    apply({ search: query.trim() });
  };

  const chips = [
    filters.search ? { key: "search", label: `Search: ${filters.search}`, clear: { search: "" } } : null,
    filters.category ? { key: "category", label: `Category: ${formatCategoryLabel(filters.category)}`, clear: { category: "" } } : null,
    filters.tag ? { key: "tag", label: `Tag: ${filters.tag}`, clear: { tag: "" } } : null,
  ].filter((chip) => chip !== null);
  const filtered = chips.length > 0;

  return (
    <div>
      <section className="bg-gradient-to-b from-indigo-50 to-white">
        <div className="mx-auto max-w-3xl px-4 py-14 text-center sm:px-6">
          <h1 className="text-4xl font-extrabold tracking-tight text-slate-900">Knowledge Base</h1>
          <p className="mt-3 text-lg text-slate-600">Guides and answers for backing up and restoring MongoDB with DBVault.</p>
          <form role="search" onSubmit={onSearch} className="mx-auto mt-8 flex max-w-xl gap-2">
            <label htmlFor="kb-search" className="sr-only">
              Search articles
            </label>
            <input
              id="kb-search"
              type="search"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              placeholder="Search articles..."
              className={cn(inputClasses, "h-11")}
            />
            <Button type="submit" size="lg" className="h-11">
              <Icon name="search" className="h-4 w-4" /> Search
            </Button>
          </form>
        </div>
      </section>

      {/* Below lg the results come first: the quick cards move under them and the filters fold. */}
      <div className="mx-auto flex max-w-7xl flex-col px-4 sm:px-6 lg:block lg:px-8">
        <ul className="order-last mb-10 grid gap-4 sm:grid-cols-2 lg:order-none lg:mb-0 lg:grid-cols-4">
          {QUICK_CARDS.map((card) => (
            <li key={card.title}>
              <button
                type="button"
                onClick={() => apply({ category: card.category })}
                className="flex h-full w-full items-start gap-3 rounded-xl border border-slate-200 bg-white p-4 text-left shadow-sm hover:border-indigo-300"
              >
                <Icon name={card.icon} className="h-6 w-6 shrink-0 text-indigo-600" />
                <span>
                  <span className="block font-semibold text-slate-900">{card.title}</span>
                  <span className="mt-1 block text-sm text-slate-600">{card.text}</span>
                </span>
              </button>
            </li>
          ))}
          <li>
            <Link href="/contact" className="flex h-full items-start gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm hover:border-indigo-300">
              <Icon name="mail" className="h-6 w-6 shrink-0 text-indigo-600" />
              <span>
                <span className="block font-semibold text-slate-900">Contact Support</span>
                <span className="mt-1 block text-sm text-slate-600">Can't find an answer? Ask us</span>
              </span>
            </Link>
          </li>
        </ul>

        <div className="grid gap-8 py-10 lg:grid-cols-[16rem_1fr]">
          <Button
            variant="outline"
            className="justify-between lg:hidden"
            aria-expanded={filtersOpen}
            aria-controls="kb-filters"
            onClick={() => setFiltersOpen((open) => !open)}
          >
            <span className="inline-flex items-center gap-2">
              <Icon name="tag" className="h-4 w-4" /> Categories and tags
            </span>
            <Icon name={filtersOpen ? "chevronUp" : "chevronDown"} className="h-4 w-4" />
          </Button>
          <aside id="kb-filters" className={cn("space-y-8 lg:block", filtersOpen ? "" : "hidden")} aria-label="Filters">
            <section aria-labelledby="kb-categories">
              <h2 id="kb-categories" className="text-sm font-semibold uppercase tracking-wide text-slate-500">
                Categories
              </h2>
              <ul className="mt-3 space-y-1">
                {categories.map((category) => (
                  <li key={category._id}>
                    <button
                      type="button"
                      aria-pressed={filters.category === category._id}
                      onClick={() => apply({ category: filters.category === category._id ? "" : category._id })}
                      className="flex w-full items-center gap-2 rounded-md px-2 py-1.5 text-left text-sm text-slate-700 hover:bg-slate-100 aria-[pressed=true]:bg-indigo-50 aria-[pressed=true]:text-indigo-700"
                    >
                      <Icon name={CATEGORY_ICONS[category._id as KbCategory] ?? "book"} className="h-4 w-4" />
                      <span className="flex-1">{formatCategoryLabel(category._id)}</span>
                      <span className="rounded-full bg-slate-100 px-2 text-xs text-slate-600">{category.count}</span>
                    </button>
                  </li>
                ))}
              </ul>
            </section>
            <section aria-labelledby="kb-tags">
              <h2 id="kb-tags" className="text-sm font-semibold uppercase tracking-wide text-slate-500">
                Popular Tags
              </h2>
              <ul className="mt-3 flex flex-wrap gap-2">
                {tags.slice(0, 20).map((tag) => (
                  <li key={tag._id}>
                    <button
                      type="button"
                      aria-pressed={filters.tag === tag._id}
                      onClick={() => apply({ tag: filters.tag === tag._id ? "" : tag._id })}
                      className="rounded-full border border-slate-200 px-2.5 py-1 text-xs text-slate-700 hover:border-indigo-300 aria-[pressed=true]:border-indigo-600 aria-[pressed=true]:bg-indigo-50 aria-[pressed=true]:text-indigo-700"
                    >
                      {tag._id} <span className="text-slate-500">({tag.count})</span>
                    </button>
                  </li>
                ))}
              </ul>
            </section>
          </aside>

          <section aria-labelledby="kb-results" aria-busy={list.status === "loading"}>
            <h2 id="kb-results" className="sr-only">
              Articles
            </h2>
            {filtered ? (
              <div className="mb-4 flex flex-wrap items-center gap-2" aria-label="Active filters">
                {chips.map((chip) => (
                  <span key={chip.key} className="inline-flex items-center gap-1 rounded-full bg-indigo-50 py-1 pl-3 pr-1 text-sm text-indigo-800">
                    {chip.label}
                    <button
                      type="button"
                      aria-label={`Remove filter ${chip.label}`}
                      onClick={() => apply(chip.clear)}
                      className="rounded-full p-0.5 hover:bg-indigo-100"
                    >
                      <Icon name="x" className="h-3.5 w-3.5" />
                    </button>
                  </span>
                ))}
                <Button variant="link" size="sm" onClick={() => setLocation("/kb")}>
                  Clear all
                </Button>
              </div>
            ) : null}

            {list.status === "loading" ? (
              <ul className="space-y-4" aria-label="Loading articles">
                {[0, 1, 2].map((i) => (
                  <li key={i} className="h-28 animate-pulse rounded-xl bg-slate-100" />
                ))}
              </ul>
            ) : list.status === "error" ? (
              <Alert>Failed to load articles</Alert>
            ) : list.answer.articles.length === 0 ? (
              <div className="rounded-xl border border-dashed border-slate-300 p-12 text-center">
                <Icon name="book" className="mx-auto h-10 w-10 text-slate-400" />
                <p className="mt-4 text-lg font-semibold text-slate-900">No articles found</p>
                <p className="mt-1 text-slate-600">{filtered ? "Try adjusting your search or filters" : "No articles have been published yet"}</p>
              </div>
            ) : (
              <>
                <ul className="space-y-4">
                  {list.answer.articles.map((article) => (
                    <li
                      key={article._id}
                      className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm hover:border-indigo-300"
                      data-testid="kb-article"
                    >
                      <Link href={`/kb/${article.slug}`} className="text-lg font-semibold text-slate-900 hover:text-indigo-600">
                        {article.title}
                      </Link>
                      {article.excerpt ? <p className="mt-1 line-clamp-2 text-sm text-slate-600">{article.excerpt}</p> : null}
                      <div className="mt-3 flex flex-wrap items-center gap-x-4 gap-y-2 text-xs text-slate-500">
                        <span className="inline-flex items-center gap-1 font-medium text-indigo-700">
                          <Icon name={CATEGORY_ICONS[article.category as KbCategory] ?? "book"} className="h-3.5 w-3.5" />
                          {formatCategoryLabel(article.category)}
                        </span>
                        <span>Updated {formatDate(article.updatedAt)}</span>
                        {article.tags.map((tag) => (
                          <span key={tag} className="rounded-full bg-slate-100 px-2 py-0.5 text-slate-600">
                            {tag}
                          </span>
                        ))}
                      </div>
                    </li>
                  ))}
                </ul>
                <KbPagination
                  page={list.answer.pagination.page}
                  pages={list.answer.pagination.pages}
                  onPage={(page) => {
                    setLocation(toQueryString({ ...filters, page }));
                    // A new page starts at its first article, not where the pager was.
                    scrollToElement("kb-results");
                  }}
                />
              </>
            )}
          </section>
        </div>
      </div>
    </div>
  );
}
