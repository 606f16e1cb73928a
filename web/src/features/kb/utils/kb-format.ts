import type { IconName } from "../../../components/ui/icons";
import type { KbCategory } from "../../../config/constants";

/** A category label: the id with hyphens turned to capitalised words ("getting-started" → "Getting Started"). */
export function formatCategoryLabel(category: string): string {
  return category
    .split("-")
    .filter(Boolean)
    .map((word) => ACRONYMS[word] ?? word.charAt(0).toUpperCase() + word.slice(1))
    .join(" ");
}

// Words written in capitals, not capitalized: "FAQ", not "Faq".
const ACRONYMS: Record<string, string> = { faq: "FAQ", api: "API", sso: "SSO" };

export const CATEGORY_ICONS: Record<KbCategory, IconName> = {
  "getting-started": "rocket",
  setup: "settings",
  usage: "book",
  troubleshooting: "wrench",
  faq: "help",
  security: "shield",
};

/**
 * The editor's Generate rule (spec 5): lowercase the title, remove characters that are not word
 * characters, whitespace or hyphens, turn whitespace into hyphens, collapse repeated hyphens, trim.
 */
export function generateSlug(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\w\s-]/g, "")
    .replace(/\s+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** Adds a tag to a list: trimmed, non-empty and not already there; otherwise the list is unchanged. */
export function addTag(tags: string[], input: string): string[] {
  const tag = input.trim();
  if (!tag || tags.includes(tag)) return tags;
  return [...tags, tag];
}

/** The editor's save check (spec 5): the first missing field's message, in order title, slug, content; null when none. */
export function findMissingField(draft: { title: string; slug: string; content: string }): string | null {
  if (!draft.title.trim()) return "Title is required";
  if (!draft.slug.trim()) return "Slug is required";
  if (!draft.content.trim()) return "Content is required";
  return null;
}

/** The placeholder articles use for the reader's own DBVault server. */
export const SERVER_PLACEHOLDER = "https://your-dbvault-server";

/** An article's markdown with the placeholder server address replaced by this site's origin. */
export function fillServerAddress(markdown: string, origin: string): string {
  return markdown.replaceAll(SERVER_PLACEHOLDER, origin.replace(/\/+$/, ""));
}
