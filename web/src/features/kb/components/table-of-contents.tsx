import type { MouseEvent } from "react";
import { Icon } from "../../../components/ui/icons";
import { cn } from "../../../lib/cn";
import type { MarkdownHeading } from "../../../lib/markdown";
import { scrollToElement } from "../../../lib/scroll";

const INDENT: Record<number, string> = { 1: "pl-0", 2: "pl-3", 3: "pl-6", 4: "pl-9", 5: "pl-9", 6: "pl-9" };

type Props = { headings: MarkdownHeading[] };

/** The article's headings; a click scrolls smoothly to the heading, 120 px below the top. */
export function TableOfContents({ headings }: Props) {
  if (headings.length === 0) return null;
  return (
    <nav
      aria-labelledby="toc-heading"
      className="sticky top-24 max-h-[calc(100vh-8rem)] overflow-y-auto rounded-xl border border-slate-200 bg-white p-4 print:hidden"
    >
      <h2 id="toc-heading" className="text-xs font-semibold uppercase tracking-wide text-slate-500">
        On this page
      </h2>
      <HeadingLinks headings={headings} />
    </nav>
  );
}

/** The same contents folded under the article's header, for screens too narrow for the sidebar. */
export function FoldedTableOfContents({ headings }: Props) {
  if (headings.length === 0) return null;
  return (
    <details className="group mt-6 rounded-xl border border-slate-200 bg-white print:hidden">
      <summary className="keyboard-focus-ring flex cursor-pointer list-none items-center justify-between rounded-xl px-4 py-3 text-sm font-semibold text-slate-700 [&::-webkit-details-marker]:hidden">
        On this page
        <Icon name="chevronDown" className="h-4 w-4 text-slate-500 group-open:rotate-180" />
      </summary>
      <nav aria-label="On this page" className="border-t border-slate-100 px-4 pb-4">
        <HeadingLinks headings={headings} />
      </nav>
    </details>
  );
}

function HeadingLinks({ headings }: Props) {
  const go = (event: MouseEvent<HTMLAnchorElement>, id: string) => {
    event.preventDefault();
    window.history.replaceState(window.history.state, "", `#${id}`);
    scrollToElement(id);
  };
  return (
    <ul className="mt-3 space-y-1.5 text-sm">
      {headings.map((heading) => (
        <li key={heading.id} className={cn(INDENT[heading.level] ?? "pl-9")} data-level={heading.level}>
          <a href={`#${heading.id}`} onClick={(event) => go(event, heading.id)} className="block text-slate-600 hover:text-indigo-600">
            {heading.text}
          </a>
        </li>
      ))}
    </ul>
  );
}
