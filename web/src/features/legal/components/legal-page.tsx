import type { ReactNode } from "react";
import { HashLink } from "../../../components/navigation/hash-link";

export type LegalSection = { id: string; title: string; body: ReactNode };

/** A legal document: title, last-updated date, table of contents linking to numbered sections. */
export function LegalPage({ title, lastUpdated, intro, sections }: { title: string; lastUpdated: string; intro: ReactNode; sections: LegalSection[] }) {
  return (
    <div className="mx-auto max-w-4xl px-4 py-12 sm:px-6 lg:px-8">
      <header className="border-b border-slate-200 pb-8">
        <h1 className="text-4xl font-extrabold tracking-tight text-slate-900">{title}</h1>
        <p className="mt-3 text-sm text-slate-500">Last updated {lastUpdated}</p>
        <div className="prose mt-6">{intro}</div>
      </header>
      <nav aria-labelledby="toc-title" className="mt-8 rounded-xl border border-slate-200 bg-slate-50 p-6 print:hidden">
        <h2 id="toc-title" className="text-sm font-semibold uppercase tracking-wide text-slate-700">
          Table of contents
        </h2>
        <ol className="mt-4 grid gap-x-8 gap-y-2 text-sm sm:grid-cols-2">
          {sections.map((section, index) => (
            <li key={section.id}>
              <HashLink href={`#${section.id}`} className="text-indigo-700 hover:text-indigo-500 hover:underline">
                {index + 1}. {section.title}
              </HashLink>
            </li>
          ))}
        </ol>
      </nav>
      <div className="mt-10 space-y-10">
        {sections.map((section, index) => (
          <section key={section.id} id={section.id} aria-labelledby={`${section.id}-title`} className="scroll-mt-32">
            <h2 id={`${section.id}-title`} className="text-xl font-bold text-slate-900">
              {index + 1}. {section.title}
            </h2>
            <div className="prose mt-3">{section.body}</div>
          </section>
        ))}
      </div>
    </div>
  );
}
