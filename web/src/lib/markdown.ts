// Markdown for knowledge base articles: micromark (CommonMark + GFM) with raw HTML escaped,
// then a pass over its output that keeps only safe link targets, gives headings ids, and cuts
// code blocks out so the page can add copy buttons. micromark's output is regular (raw HTML in
// the source is escaped, so every tag and attribute in it is micromark's own), which is what
// makes the string passes below sound.
import { micromark } from "micromark";
import { gfm, gfmHtml } from "micromark-extension-gfm";

export type MarkdownHeading = { id: string; text: string; level: number };
export type MarkdownBlock = { kind: "html"; html: string } | { kind: "code"; code: string; language: string | null; html: string };
export type RenderedMarkdown = { blocks: MarkdownBlock[]; headings: MarkdownHeading[] };

const LINK_SCHEMES = new Set(["http", "https", "mailto", "tel"]);
const IMAGE_SCHEMES = new Set(["http", "https"]);

/** Decodes the character references micromark writes (&amp; &lt; &gt; &quot; and numeric ones). */
export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (match, entity: string) => {
    const lower = entity.toLowerCase();
    if (lower === "amp") return "&";
    if (lower === "lt") return "<";
    if (lower === "gt") return ">";
    if (lower === "quot") return '"';
    if (lower === "apos") return "'";
    const code = lower.startsWith("#x") ? Number.parseInt(lower.slice(2), 16) : Number.parseInt(lower.slice(1), 10);
    return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
  });
}

/**
 * True when a URL may be used: relative URLs and anchors, or one of the allowed schemes.
 * Anything with a colon before its first "/", "?" or "#" counts as having a scheme, so
 * obfuscated ones ("java%09script:") are refused rather than guessed at.
 */
export function isAllowedUrl(url: string, schemes: Set<string> = LINK_SCHEMES): boolean {
  // Browsers ignore leading/trailing spaces and C0 controls, and strip tabs and newlines inside.
  const cleaned = url.replace(/[\u0000-\u0020\u007f]/g, "");
  const colon = cleaned.indexOf(":");
  if (colon === -1) return true;
  const firstDelimiter = cleaned.search(/[/?#]/);
  if (firstDelimiter !== -1 && firstDelimiter < colon) return true;
  const scheme = cleaned.slice(0, colon).toLowerCase();
  return /^[a-z][a-z0-9+.-]*$/.test(scheme) && schemes.has(scheme);
}

/** Heading ids: lowercased text, non-alphanumeric runs as hyphens (trimmed), "-1", "-2"… on duplicates. */
export function createHeadingIdGenerator(): (text: string) => string {
  const used = new Map<string, number>();
  return (text: string) => {
    const base =
      text
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "") || "section";
    const seen = used.get(base) ?? 0;
    used.set(base, seen + 1);
    return seen === 0 ? base : `${base}-${seen}`;
  };
}

/**
 * Removes every href or src whose target is not allowed, in whatever tag and attribute order it
 * appears (so a change in micromark's output cannot let one through), then marks external links.
 */
export function sanitizeUrls(html: string): string {
  return (
    html
      // Every attribute-value syntax HTML has (double-quoted, single-quoted, unquoted): micromark
      // writes only the first, but a checker that knew only that one would fail open if it changed.
      .replace(/\s(href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/gi, (_, name: string, double?: string, single?: string, bare?: string) => {
        const value = double ?? single ?? bare ?? "";
        const schemes = name.toLowerCase() === "src" ? IMAGE_SCHEMES : LINK_SCHEMES;
        return isAllowedUrl(decodeHtmlEntities(value), schemes) ? ` ${name}="${value.replaceAll('"', "&quot;")}"` : "";
      })
      .replace(/<a href="(https?:[^"]*)"/gi, (_, href: string) => `<a href="${href}" rel="noopener noreferrer nofollow" target="_blank"`)
  );
}

const stripTags = (html: string) => html.replace(/<[^>]*>/g, "");

/** Renders article markdown to safe HTML blocks and the headings for a table of contents. */
export function renderMarkdown(markdown: string): RenderedMarkdown {
  const raw = micromark(markdown, {
    extensions: [gfm()],
    htmlExtensions: [gfmHtml()],
    allowDangerousHtml: false,
    // micromark's own list lacks tel: (which the spec allows) and has irc/xmpp; sanitizeUrls
    // applies ours to every URL attribute in the output.
    allowDangerousProtocol: true,
  });
  const nextId = createHeadingIdGenerator();
  const headings: MarkdownHeading[] = [];
  const html = sanitizeUrls(raw).replace(/<h([1-6])>([\s\S]*?)<\/h\1>/g, (_, level: string, inner: string) => {
    const text = decodeHtmlEntities(stripTags(inner)).trim();
    const id = nextId(text);
    headings.push({ id, text, level: Number(level) });
    return `<h${level} id="${id}">${inner}</h${level}>`;
  });

  const blocks: MarkdownBlock[] = [];
  const codePattern = /<pre><code(?: class="language-([^"]*)")?>([\s\S]*?)<\/code><\/pre>/g;
  let last = 0;
  for (const match of html.matchAll(codePattern)) {
    if (match.index > last) blocks.push({ kind: "html", html: html.slice(last, match.index) });
    const encoded = match[2] ?? "";
    blocks.push({
      kind: "code",
      language: match[1] ? decodeHtmlEntities(match[1]) : null,
      code: decodeHtmlEntities(encoded).replace(/\n$/, ""),
      html: encoded,
    });
    last = match.index + match[0].length;
  }
  if (last < html.length) blocks.push({ kind: "html", html: html.slice(last) });
  return { blocks, headings };
}
