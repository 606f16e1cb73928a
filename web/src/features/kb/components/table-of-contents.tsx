import type { MouseEvent } from "react";
import { cn } from "../../../lib/cn";
import type { MarkdownHeading } from "../../../lib/markdown";
import { scrollToElement } from "../../../lib/scroll";

const INDENT: Record<number, string> = { 1: "pl-0", 2: "pl-3", 3: "pl-6", 4: "pl-9", 5: "pl-9", 6: "pl-9" };

/** The article's headings; a click scrolls smoothly to the heading, 120 px below the top. */
export function TableOfContents({ headings }: { headings: MarkdownHeading[] }) {
  if (headings.length === 0) return null;
  const go = (event: MouseEvent<HTMLAnchorElement>, id: string) => {
    event.preventDefault();
    window.history.replaceState(window.history.state, "", `#${id}`);
    scrollToElement(id);
  };
  return (
    <nav aria-labelledby="toc-heading" className="sticky top-24 max-h-[calc(100vh-8rem)] overflow-y-auto rounded-xl border border-slate-200 bg-white p-4 print:hidden">
      <h2 id="toc-heading" className="text-xs font-semibold uppercase tracking-wide text-slate-500">
        On this page
      </h2>
      <ul className="mt-3 space-y-1.5 text-sm">
        {headings.map((heading) => (
          <li key={heading.id} className={cn(INDENT[heading.level] ?? "pl-9")} data-level={heading.level}>
            <a href={`#${heading.id}`} onClick={(event) => go(event, heading.id)} className="block text-slate-600 hover:text-indigo-600">
              {heading.text}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
