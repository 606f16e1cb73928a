import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { authGuard } from "../auth/guard";
import { kbAnswers, kbModel } from "./model";
import { KB_PAGE_SIZE, listCategoryCounts, listPublishedArticles, listTagCounts } from "./search";
import { createArticle, deleteArticle, getArticleBySlug, listAllArticles, updateArticle } from "./service";

const bearer = [{ bearer: [] }];

/**
 * The knowledge base: public reading (published articles only) and admin writing. The fixed
 * paths come before `/:slug` so that no article slug can shadow them.
 */
export const kbController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/kb", detail: { tags: ["Knowledge base"] } })
    .use(authGuard(ctx))
    .get("/", ({ query }) => listPublishedArticles(ctx, query), {
      query: kbModel.listQuery,
      response: { 200: kbAnswers.list },
      detail: { summary: `Published articles, searched and filtered, ${KB_PAGE_SIZE} per page` },
    })
    .get("/categories", () => listCategoryCounts(ctx), {
      response: { 200: kbAnswers.categories },
      detail: { summary: "Categories with published-article counts" },
    })
    .get("/tags", () => listTagCounts(ctx), { response: { 200: kbAnswers.tags }, detail: { summary: "Tags with published-article counts, most used first" } })
    .get("/admin/all", () => listAllArticles(ctx), {
      admin: true,
      response: { 200: kbAnswers.articles },
      detail: { summary: "Every article, drafts included", security: bearer },
    })
    .get("/:slug", ({ params, headers }) => getArticleBySlug(ctx, params.slug, headers.authorization), {
      params: kbModel.slugParams,
      response: { 200: kbAnswers.article },
      detail: { summary: "One published article (drafts too for an admin's token)" },
    })
    .post(
      "/",
      async ({ user, body, set }) => {
        const article = await createArticle(ctx, user, body);
        set.status = 201;
        return article;
      },
      { admin: true, body: kbModel.create, response: { 201: kbAnswers.article }, detail: { summary: "Create an article", security: bearer } },
    )
    .put("/:id", ({ user, params, body }) => updateArticle(ctx, user, params.id, body), {
      admin: true,
      params: kbModel.idParams,
      body: kbModel.update,
      response: { 200: kbAnswers.article },
      detail: { summary: "Update some or all of an article", security: bearer },
    })
    .delete("/:id", ({ user, params }) => deleteArticle(ctx, user, params.id), {
      admin: true,
      params: kbModel.idParams,
      response: { 200: kbAnswers.message },
      detail: { summary: "Delete an article", security: bearer },
    });
