import { Link } from "wouter";
import { Button, buttonClasses } from "../../../components/ui/button";
import { SUPPORT_EMAIL } from "../../../config/site";
import { formatDateTime } from "../../../lib/format-date";
import { useSession } from "../../../lib/auth/use-session";

/** The Account Suspended page (spec 2, /banned). */
export function BannedView() {
  const { banReason, bannedAt, logout } = useSession();
  return (
    <div className="flex min-h-[calc(100vh-8rem)] items-center justify-center bg-slate-50 px-4 py-12">
      <div className="w-full max-w-lg rounded-xl border border-red-200 bg-white p-8 text-center shadow-sm">
        <div aria-hidden="true" className="mx-auto flex h-14 w-14 items-center justify-center rounded-full bg-red-100 text-red-600">
          <svg viewBox="0 0 24 24" className="h-7 w-7" fill="none" stroke="currentColor" strokeWidth="2">
            <circle cx="12" cy="12" r="9" />
            <path d="M5.6 5.6l12.8 12.8" />
          </svg>
        </div>
        <h1 className="mt-4 text-2xl font-bold text-slate-900">Account Suspended</h1>
        <p className="mt-2 text-slate-600">Your account has been suspended</p>
        <dl className="mt-6 space-y-2 rounded-lg bg-slate-50 p-4 text-left text-sm">
          <div>
            <dt className="inline font-medium text-slate-700">Reason: </dt>
            <dd className="inline text-slate-900">{banReason || "No reason provided"}</dd>
          </div>
          <div>
            <dt className="inline font-medium text-slate-700">Date: </dt>
            <dd className="inline text-slate-900">{formatDateTime(bannedAt) || "Unknown date"}</dd>
          </div>
        </dl>
        <p className="mt-6 text-sm text-slate-600">
          If you believe this is a mistake, please contact support at{" "}
          <a href={`mailto:${SUPPORT_EMAIL}`} className="font-medium text-indigo-600 hover:text-indigo-500">
            {SUPPORT_EMAIL}
          </a>
          .
        </p>
        <div className="mt-8 flex flex-col justify-center gap-3 sm:flex-row">
          <Link href="/" className={buttonClasses({ variant: "outline" })}>
            Return to Home
          </Link>
          <Button variant="destructive" onClick={() => logout()}>
            Sign Out
          </Button>
        </div>
      </div>
    </div>
  );
}
