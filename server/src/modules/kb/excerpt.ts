// Plain-text excerpts of markdown articles for the knowledge-base list.

export const EXCERPT_LENGTH = 200;
/** When the excerpt is centred on a search hit, how much text before the hit it keeps. */
const LEAD_IN = 60;

/** The readable prose of a markdown document: no code blocks, headings, tables or markup. */
export function markdownToPlainText(markdown: string): string {
  return markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, " ")
    .split("\n")
    .filter((line) => !/^\s*(#{1,6}\s|\||<!--|-{3,}\s*$|={3,}\s*$)/.test(line))
    .map((line) => line.replace(/^\s*(>\s*)+/, "").replace(/^\s*([-*+]|\d+[.)])\s+/, ""))
    .join(" ")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, " ")
    .replace(/`+([^`]*)`+/g, "$1")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(^|[\s(])\*(\S(?:.*?\S)?)\*/g, "$1$2")
    .replace(/\s+/g, " ")
    .trim();
}

function cutAtWord(text: string, length: number): string {
  if (text.length <= length) return text;
  const cut = text.slice(0, length);
  const lastSpace = cut.lastIndexOf(" ");
  return `${(lastSpace > length * 0.6 ? cut.slice(0, lastSpace) : cut).replace(/[\s,;:.-]+$/, "")}…`;
}

/**
 * About EXCERPT_LENGTH characters of an article's prose. With search terms, the excerpt starts
 * shortly before the first term the prose contains, so the list shows why the article matched.
 */
export function buildExcerpt(markdown: string, terms: string[] = []): string {
  const text = markdownToPlainText(markdown);
  const lower = text.toLowerCase();
  const hits = terms.map((term) => lower.indexOf(term.toLowerCase())).filter((index) => index >= 0);
  const hit = hits.length > 0 ? Math.min(...hits) : -1;
  if (hit <= LEAD_IN) return cutAtWord(text, EXCERPT_LENGTH);
  const space = text.indexOf(" ", hit - LEAD_IN);
  const from = space >= 0 && space < hit ? space + 1 : hit;
  return `…${cutAtWord(text.slice(from), EXCERPT_LENGTH)}`;
}
