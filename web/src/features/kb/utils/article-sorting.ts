// Sorting rules of the admin article list (spec 2): clicking the active column toggles its
// direction, a new column sorts ascending, and the list starts on updatedAt descending.
export type SortableColumn = "title" | "slug" | "category" | "order" | "updatedAt";
export type ArticleSort = { id: SortableColumn; desc: boolean };

export const DEFAULT_ARTICLE_SORT: ArticleSort = { id: "updatedAt", desc: true };

export function nextArticleSort(current: ArticleSort, clicked: SortableColumn): ArticleSort {
  if (current.id === clicked) return { id: clicked, desc: !current.desc };
  return { id: clicked, desc: false };
}
