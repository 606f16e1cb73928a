import { useEffect, useState } from "react";
import { Icon } from "../../../components/ui/icons";
import { COPIED_FEEDBACK_MS } from "../../../config/constants";
import type { MarkdownBlock } from "../../../lib/markdown";

function CodeBlock({ block }: { block: Extract<MarkdownBlock, { kind: "code" }> }) {
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPIED_FEEDBACK_MS);
    return () => clearTimeout(timer);
  }, [copied]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(block.code);
      setCopied(true);
    } catch {
      // Clipboard refused (insecure origin or permissions): the code stays selectable.
    }
  }

  return (
    <div className="group relative">
      <button
        type="button"
        onClick={copy}
        className="absolute right-2 top-2 inline-flex items-center gap-1 rounded-md bg-slate-700 px-2 py-1 text-xs font-medium text-slate-100 hover:bg-slate-600 print:hidden"
        aria-label={copied ? "Copied!" : "Copy code"}
      >
        <Icon name={copied ? "check" : "copy"} className="h-3.5 w-3.5" />
        <span aria-live="polite">{copied ? "Copied!" : "Copy"}</span>
      </button>
      {/* The HTML is micromark's escaped code text (see lib/markdown.ts). */}
      <pre>
        <code className={block.language ? `language-${block.language}` : undefined} dangerouslySetInnerHTML={{ __html: block.html }} />
      </pre>
    </div>
  );
}

/** Rendered article markdown; the HTML blocks come from renderMarkdown, which sanitises them. */
export function MarkdownContent({ blocks }: { blocks: MarkdownBlock[] }) {
  return (
    <div className="prose max-w-none">
      {blocks.map((block, index) =>
        block.kind === "code" ? (
          <CodeBlock key={index} block={block} />
        ) : (
          <div key={index} className="contents" dangerouslySetInnerHTML={{ __html: block.html }} />
        ),
      )}
    </div>
  );
}
