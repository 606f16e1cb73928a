import { boolean, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAtColumn, idColumn, timestampColumn } from "./columns";
import { users } from "./users";

export const kbCategories = ["getting-started", "setup", "usage", "troubleshooting", "faq", "security"] as const;
export type KbCategory = (typeof kbCategories)[number];

export const kbArticles = pgTable(
  "kb_articles",
  {
    id: idColumn(),
    title: text("title").notNull(),
    slug: text("slug").notNull().unique(),
    /** Markdown. */
    content: text("content").notNull(),
    category: text("category", { enum: kbCategories }).notNull().default("getting-started"),
    tags: jsonb("tags").$type<string[]>().notNull().default([]),
    isPublished: boolean("is_published").notNull().default(true),
    order: integer("order").notNull().default(0),
    authorId: text("author_id").references(() => users.id, { onDelete: "set null" }),
    authorName: text("author_name"),
    createdAt: createdAtColumn(),
    updatedAt: timestampColumn("updated_at").notNull().defaultNow(),
  },
  (table) => [index("kb_articles_category_idx").on(table.category)],
);
