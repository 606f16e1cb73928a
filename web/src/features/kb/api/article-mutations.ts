// The admin's changes to articles as mutations. The admin list shows a change as soon as the
// server accepts it (spec 4: no reload of the list); the readers' pages are read again when next shown.
import { type QueryClient, useMutation, useQueryClient } from "@tanstack/react-query";
import { answerOf } from "../../../lib/api-client";
import { allArticlesQuery, kbQueryKey } from "./get-articles";
import { type ArticleDraft, createArticleRequest, deleteArticleRequest, type KbArticle, updateArticleRequest } from "./kb-api";

function changeAdminList(queryClient: QueryClient, change: (list: KbArticle[]) => KbArticle[]) {
  queryClient.setQueryData<KbArticle[]>(allArticlesQuery.queryKey, (list) => (list ? change(list) : list));
  void queryClient.invalidateQueries({ queryKey: kbQueryKey, predicate: (entry) => entry.queryKey[1] !== "admin" });
}

export function usePublishArticle() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, isPublished }: { id: string; isPublished: boolean }) => answerOf(updateArticleRequest(id, { isPublished })),
    onSuccess: (saved, { id, isPublished }) =>
      changeAdminList(queryClient, (list) => list.map((a) => (a._id === id ? { ...a, isPublished, updatedAt: saved.updatedAt ?? a.updatedAt } : a))),
  });
}

export function useDeleteArticle() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => answerOf(deleteArticleRequest(id)),
    onSuccess: (_answer, id) => changeAdminList(queryClient, (list) => list.filter((a) => a._id !== id)),
  });
}

/** Creates the article (no id yet) or saves the edited one; every knowledge base entry is read again. */
export function useSaveArticle() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, article }: { id: string | null; article: ArticleDraft }) =>
      answerOf(id ? updateArticleRequest(id, article) : createArticleRequest(article)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: kbQueryKey }),
  });
}
