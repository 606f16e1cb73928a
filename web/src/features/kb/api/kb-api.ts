import type { KbCategory } from "../../../config/constants";
import { api } from "../../../lib/api-client";

export type KbListQuery = { search?: string; category?: string; tag?: string; page?: number };

// GET /api/kb/:slug and PUT/DELETE /api/kb/:id share one path level, which Eden types as a union
// of the two nodes; these pick the node each call needs (the path value is sent as is).
type KbNode = ReturnType<typeof api.kb>;
type ReaderNode = Extract<KbNode, { get: unknown }>;
type WriterNode = Extract<KbNode, { put: unknown }>;
const readerNode = (slug: string) => api.kb({ slug } as never) as unknown as ReaderNode;
const writerNode = (id: string) => api.kb({ id } as never) as unknown as WriterNode;

type ServerArticleBody = NonNullable<Parameters<typeof api.kb.post>[0]>;
// The server's category schema (a union built from a list) reaches Eden typed as undefined, so
// the category is typed here from the same list of spec categories; everything else is derived.
export type ArticleDraft = Omit<ServerArticleBody, "category"> & { category?: KbCategory };

export const listArticlesRequest = (query: KbListQuery) => api.kb.get({ query: query as never });
export const listCategoriesRequest = () => api.kb.categories.get();
export const listTagsRequest = () => api.kb.tags.get();
export const getArticleRequest = (slug: string) => readerNode(slug).get();
export const listAllArticlesRequest = () => api.kb.admin.all.get();
export const createArticleRequest = (article: ArticleDraft) => api.kb.post(article as ServerArticleBody);
export const updateArticleRequest = (id: string, changes: Partial<ArticleDraft>) => writerNode(id).put(changes as never);
export const deleteArticleRequest = (id: string) => writerNode(id).delete();

// Answers as the server types them.
export type KbListAnswer = NonNullable<Awaited<ReturnType<typeof listArticlesRequest>>["data"]>;
export type KbListEntry = KbListAnswer["articles"][number];
export type KbCategoryCount = NonNullable<Awaited<ReturnType<typeof listCategoriesRequest>>["data"]>[number];
export type KbTagCount = NonNullable<Awaited<ReturnType<typeof listTagsRequest>>["data"]>[number];
export type KbArticle = NonNullable<Awaited<ReturnType<typeof listAllArticlesRequest>>["data"]>[number];
