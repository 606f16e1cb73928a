import { useQuery } from "@tanstack/react-query";
import { type KeyboardEvent, useEffect, useMemo, useState } from "react";
import { useLocation } from "wouter";
import { Button } from "../../../components/ui/button";
import { Field, TextAreaField } from "../../../components/ui/field";
import { Icon } from "../../../components/ui/icons";
import { LoadingScreen } from "../../../components/ui/spinner";
import { Switch } from "../../../components/ui/switch";
import { toast } from "../../../components/ui/toast-store";
import { KB_CATEGORIES, type KbCategory } from "../../../config/constants";
import { readErrorMessage } from "../../../lib/api-client";
import { renderMarkdown } from "../../../lib/markdown";
import { usePageTitle } from "../../../lib/page-title";
import { useSaveArticle } from "../api/article-mutations";
import type { ArticleDraft } from "../api/kb-api";
import { allArticlesQuery } from "../api/get-articles";
import { addTag, findMissingField, formatCategoryLabel, generateSlug } from "../utils/kb-format";
import { MarkdownContent } from "./markdown-content";
import { Select } from "../../../components/ui/select";

type Draft = Required<ArticleDraft> & { category: KbCategory };

const NEW_ARTICLE: Draft = { title: "", slug: "", content: "", category: "getting-started", tags: [], isPublished: true, order: 0 };

/** The article editor (spec 2, /admin/kb/new and /admin/kb/{id}). */
export function ArticleEditor({ articleId }: { articleId: string | null }) {
  const [, setLocation] = useLocation();
  const [draft, setDraft] = useState<Draft>(NEW_ARTICLE);
  const { mutate: saveArticle, isPending: saving } = useSaveArticle();
  const [preview, setPreview] = useState(false);
  const [tagInput, setTagInput] = useState("");
  usePageTitle(articleId ? "Edit Article" : "New Article");

  // The editor finds its article by _id in the admin list (spec 7), read afresh on opening (the
  // list cached by the admin page may be out of date) and copied into the form once.
  const articles = useQuery({ ...allArticlesQuery, enabled: articleId !== null, refetchOnMount: "always" });
  const [loadedId, setLoadedId] = useState<string | null>(null);
  const fresh = articles.isFetchedAfterMount && !articles.isFetching;
  useEffect(() => {
    if (!articleId) {
      setDraft(NEW_ARTICLE);
      setLoadedId(null);
      return;
    }
    if (!fresh || loadedId === articleId) return;
    setLoadedId(articleId);
    if (articles.isError) {
      toast({ title: "Failed to load article", variant: "destructive" });
      return;
    }
    const found = articles.data?.find((article) => article._id === articleId);
    if (!found) {
      toast({ title: "Article not found", variant: "destructive" });
      setLocation("/admin/kb");
      return;
    }
    setDraft({
      title: found.title,
      slug: found.slug,
      content: found.content,
      category: found.category as KbCategory,
      tags: found.tags,
      isPublished: found.isPublished,
      order: found.order,
    });
  }, [articleId, fresh, loadedId, articles.isError, articles.data, setLocation]);
  const loading = articleId !== null && loadedId !== articleId;

  const rendered = useMemo(() => (preview ? renderMarkdown(draft.content) : null), [preview, draft.content]);
  const update = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));

  const onTagKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    update("tags", addTag(draft.tags, tagInput));
    setTagInput("");
  };

  function save() {
    const missing = findMissingField(draft);
    if (missing) {
      toast({ title: "Validation Error", description: missing, variant: "destructive" });
      return;
    }
    const article: Draft = { ...draft, title: draft.title.trim(), slug: draft.slug.trim() };
    saveArticle(
      { id: articleId, article },
      {
        onSuccess: (saved) => {
          toast({ title: articleId ? "Article updated successfully" : "Article created successfully", variant: "success" });
          if (!articleId) setLocation(`/admin/kb/${saved._id}`);
        },
        onError: (error) => toast({ title: "Error", description: readErrorMessage(error) ?? "Failed to save article", variant: "destructive" }),
      },
    );
  }

  if (loading) return <LoadingScreen label="Loading article..." />;

  return (
    <div className="mx-auto max-w-5xl px-4 py-10 sm:px-6 lg:px-8">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <Button variant="ghost" onClick={() => setLocation("/admin/kb")}>
          <Icon name="arrowLeft" className="h-4 w-4" /> Back
        </Button>
        <div className="flex gap-2">
          <Button variant="outline" onClick={() => setPreview((p) => !p)} aria-pressed={preview}>
            <Icon name={preview ? "pencil" : "eye"} className="h-4 w-4" /> {preview ? "Edit" : "Preview"}
          </Button>
          <Button onClick={save} disabled={saving}>
            {saving ? "Saving..." : "Save"}
          </Button>
        </div>
      </div>
      <h1 className="mt-6 text-3xl font-bold tracking-tight text-slate-900">{articleId ? "Edit Article" : "New Article"}</h1>

      {preview && rendered ? (
        <article className="mt-8 rounded-xl border border-slate-200 bg-white p-8" aria-label="Preview">
          <h1 className="text-4xl font-extrabold tracking-tight text-slate-900">{draft.title.trim() || "Untitled Article"}</h1>
          <div className="mt-8">
            <MarkdownContent blocks={rendered.blocks} />
          </div>
        </article>
      ) : (
        <div className="mt-8 space-y-6 rounded-xl border border-slate-200 bg-white p-6 sm:p-8">
          <Field label="Title" value={draft.title} onChange={(e) => update("title", e.target.value)} placeholder="Installing the agent" />
          <div className="flex items-end gap-2">
            <Field className="flex-1" label="Slug" value={draft.slug} onChange={(e) => update("slug", e.target.value)} placeholder="installing-the-agent" />
            <Button variant="outline" size="input" onClick={() => update("slug", generateSlug(draft.title))}>
              Generate
            </Button>
          </div>
          <div className="grid gap-6 sm:grid-cols-3">
            <div>
              <label htmlFor="article-category" className="block text-sm font-medium text-slate-700">
                Category
              </label>
              <Select id="article-category" value={draft.category} onChange={(e) => update("category", e.target.value as KbCategory)} className="mt-1">
                {KB_CATEGORIES.map((id) => (
                  <option key={id} value={id}>
                    {formatCategoryLabel(id)}
                  </option>
                ))}
              </Select>
            </div>
            <Field
              label="Display order"
              type="number"
              value={String(draft.order)}
              onChange={(e) => update("order", Number.parseInt(e.target.value, 10) || 0)}
            />
            <div>
              <span id="article-status-label" className="block text-sm font-medium text-slate-700">
                Status
              </span>
              <div className="mt-2 flex items-center gap-3">
                <Switch checked={draft.isPublished} onCheckedChange={(value) => update("isPublished", value)} label="Published" />
                <span className="text-sm text-slate-700">{draft.isPublished ? "Published" : "Draft"}</span>
              </div>
            </div>
          </div>
          <div>
            <Field
              label="Tags"
              value={tagInput}
              onChange={(e) => setTagInput(e.target.value)}
              onKeyDown={onTagKeyDown}
              hint="Type a tag and press Enter."
              placeholder="backup"
            />
            {draft.tags.length > 0 ? (
              <ul className="mt-2 flex flex-wrap gap-2" aria-label="Article tags">
                {draft.tags.map((tag) => (
                  <li key={tag} className="inline-flex items-center gap-1 rounded-full bg-indigo-50 py-1 pl-3 pr-1 text-sm text-indigo-800">
                    {tag}
                    <button
                      type="button"
                      aria-label={`Remove tag ${tag}`}
                      onClick={() =>
                        update(
                          "tags",
                          draft.tags.filter((t) => t !== tag),
                        )
                      }
                      className="rounded-full p-0.5 hover:bg-indigo-100"
                    >
                      <Icon name="x" className="h-3.5 w-3.5" />
                    </button>
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
          <TextAreaField
            label="Content (Markdown)"
            rows={18}
            value={draft.content}
            onChange={(e) => update("content", e.target.value)}
            placeholder="# Heading"
          />
        </div>
      )}
    </div>
  );
}
