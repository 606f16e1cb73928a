import { t } from "elysia";
import { kbCategories } from "@db/schema";
import { isoDate, messageAnswer, nullable, oneOf } from "../../lib/schema";

const CATEGORY_MESSAGE = `category must be one of ${kbCategories.join(", ")}`;

/** Non-blank text: JSON Schema patterns are unanchored, so one non-space character anywhere passes. */
const nonBlank = (message: string) => t.String({ pattern: "\\S", error: message });

// Property order is the editor's check order (spec section 5): title, then slug, then content.
const articleFields = {
  title: nonBlank("Title is required"),
  slug: nonBlank("Slug is required"),
  content: nonBlank("Content is required"),
  category: oneOf(kbCategories, CATEGORY_MESSAGE),
  tags: t.Array(t.String({ maxLength: 50, error: "A tag must be at most 50 characters" }), {
    maxItems: 30,
    error: "tags must be a list of at most 30 texts",
  }),
  isPublished: t.Boolean({ error: "isPublished must be true or false" }),
  order: t.Integer({ minimum: -1_000_000, maximum: 1_000_000, error: "order must be a whole number" }),
};

export const kbModel = {
  listQuery: t.Object({
    search: t.Optional(t.String({ maxLength: 200, error: "search must be at most 200 characters" })),
    category: t.Optional(oneOf(["", ...kbCategories], `${CATEGORY_MESSAGE}, or empty`)),
    tag: t.Optional(t.String({ maxLength: 50, error: "tag must be at most 50 characters" })),
    page: t.Optional(t.Integer({ minimum: 1, maximum: 100_000, error: "page must be a whole number from 1" })),
  }),
  slugParams: t.Object({ slug: t.String({ minLength: 1, maxLength: 200 }) }),
  idParams: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
  create: t.Object({
    title: articleFields.title,
    slug: articleFields.slug,
    content: articleFields.content,
    category: t.Optional(articleFields.category),
    tags: t.Optional(articleFields.tags),
    isPublished: t.Optional(articleFields.isPublished),
    order: t.Optional(articleFields.order),
  }),
  update: t.Object(
    {
      title: t.Optional(articleFields.title),
      slug: t.Optional(articleFields.slug),
      content: t.Optional(articleFields.content),
      category: t.Optional(articleFields.category),
      tags: t.Optional(articleFields.tags),
      isPublished: t.Optional(articleFields.isPublished),
      order: t.Optional(articleFields.order),
    },
    { minProperties: 1, error: "Send at least one of title, slug, content, category, tags, isPublished or order" },
  ),
};

export type ArticleInput = typeof kbModel.create.static;
export type ArticleUpdate = typeof kbModel.update.static;
export type ArticleListQuery = typeof kbModel.listQuery.static;

const categoryAnswer = oneOf(kbCategories, "category");

const articleAnswer = t.Object({
  _id: t.String(),
  id: t.String(),
  title: t.String(),
  slug: t.String(),
  content: t.String({ description: "Markdown" }),
  category: categoryAnswer,
  tags: t.Array(t.String()),
  isPublished: t.Boolean(),
  order: t.Integer(),
  author: nullable(t.Object({ name: t.String() })),
  createdAt: isoDate(),
  updatedAt: isoDate(),
});

const countAnswer = (what: string) => t.Array(t.Object({ _id: t.String({ description: what }), count: t.Integer() }));

export const kbAnswers = {
  article: articleAnswer,
  articles: t.Array(articleAnswer),
  list: t.Object({
    articles: t.Array(
      t.Object({
        _id: t.String(),
        slug: t.String(),
        title: t.String(),
        category: categoryAnswer,
        tags: t.Array(t.String()),
        updatedAt: isoDate(),
        excerpt: t.String({ description: "Plain text around the first search term (or the start)" }),
      }),
    ),
    pagination: t.Object({ total: t.Integer(), page: t.Integer(), pages: t.Integer(), limit: t.Integer() }),
  }),
  categories: countAnswer("The category"),
  tags: countAnswer("The tag"),
  message: messageAnswer,
};
