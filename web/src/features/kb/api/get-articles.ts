// The knowledge base as queries. Every key starts with "kb", so a change made in the admin pages
// (publish, delete, save) invalidates what readers and the admin list show.
import { useQuery } from "@tanstack/react-query";
import { answerOf } from "../../../lib/api-client";
import { getArticleRequest, type KbListQuery, listAllArticlesRequest, listArticlesRequest, listCategoriesRequest, listTagsRequest } from "./kb-api";

export const kbQueryKey = ["kb"] as const;

/** Every article, drafts included (admins only): the admin list and the editor read it. */
export const allArticlesQuery = { queryKey: [...kbQueryKey, "admin", "all"], queryFn: () => answerOf(listAllArticlesRequest()) };

export function useAllArticles() {
  return useQuery(allArticlesQuery);
}

/** One page of published articles under the reader's filters. */
export function useArticleList(query: KbListQuery) {
  return useQuery({ queryKey: [...kbQueryKey, "list", query], queryFn: () => answerOf(listArticlesRequest(query)) });
}

export function useKbCategories() {
  return useQuery({ queryKey: [...kbQueryKey, "categories"], queryFn: () => answerOf(listCategoriesRequest()) });
}

export function useKbTags() {
  return useQuery({ queryKey: [...kbQueryKey, "tags"], queryFn: () => answerOf(listTagsRequest()) });
}

/** One article by its slug, for the reader. */
export function useArticle(slug: string) {
  return useQuery({ queryKey: [...kbQueryKey, "article", slug], queryFn: () => answerOf(getArticleRequest(slug)) });
}
