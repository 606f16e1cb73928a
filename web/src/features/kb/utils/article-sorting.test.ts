import { expect, test } from "bun:test";
import { DEFAULT_ARTICLE_SORT, nextArticleSort } from "./article-sorting";

test("admin list sorting: default updatedAt descending, active column toggles, new column ascending", () => {
  expect(DEFAULT_ARTICLE_SORT).toEqual({ id: "updatedAt", desc: true });
  expect(nextArticleSort(DEFAULT_ARTICLE_SORT, "updatedAt")).toEqual({ id: "updatedAt", desc: false });
  const byTitle = nextArticleSort(DEFAULT_ARTICLE_SORT, "title");
  expect(byTitle).toEqual({ id: "title", desc: false });
  expect(nextArticleSort(byTitle, "title")).toEqual({ id: "title", desc: true });
  expect(nextArticleSort({ id: "title", desc: true }, "order")).toEqual({ id: "order", desc: false });
});
