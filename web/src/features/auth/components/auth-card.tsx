import type { ReactNode } from "react";
import { Link } from "wouter";

/** The frame of the sign-in pages: logo, heading, a line under it, and the form card. */
export function AuthCard({ title, subtitle, children, footer }: { title: string; subtitle?: ReactNode; children: ReactNode; footer?: ReactNode }) {
  return (
    <div className="flex min-h-[calc(100vh-8rem)] flex-col justify-center bg-slate-50 px-4 py-12 sm:px-6 lg:px-8">
      <div className="mx-auto w-full max-w-md text-center">
        <Link href="/" className="inline-flex items-center gap-2 text-2xl font-bold text-slate-900">
          <span aria-hidden="true" className="inline-flex h-9 w-9 items-center justify-center rounded-lg bg-indigo-600 text-white">
            <svg viewBox="0 0 24 24" className="h-5 w-5" fill="none" stroke="currentColor" strokeWidth="2">
              <path d="M12 3l7 3v5c0 4.5-3 8.3-7 10-4-1.7-7-5.5-7-10V6z" />
            </svg>
          </span>
          DBVault
        </Link>
        <h1 className="mt-6 text-3xl font-bold tracking-tight text-slate-900">{title}</h1>
        {subtitle ? <p className="mt-2 text-sm text-slate-600">{subtitle}</p> : null}
      </div>
      <div className="mx-auto mt-8 w-full max-w-md rounded-xl border border-slate-200 bg-white px-6 py-8 shadow-sm sm:px-10">{children}</div>
      {footer ? <div className="mx-auto mt-6 w-full max-w-md text-center text-sm text-slate-600">{footer}</div> : null}
    </div>
  );
}
