import { Link } from "wouter";
import { buttonClasses } from "../../components/ui/button";
import { usePageTitle } from "../../lib/page-title";

export default function NotFoundPage() {
  usePageTitle("Page Not Found");
  return (
    <div className="mx-auto flex max-w-xl flex-col items-center px-4 py-24 text-center">
      <p className="text-sm font-semibold text-indigo-600">404</p>
      <h1 className="mt-2 text-3xl font-bold tracking-tight text-slate-900">Page not found</h1>
      <p className="mt-4 text-slate-600">The page you're looking for doesn't exist or has moved.</p>
      <Link href="/" className={buttonClasses({ className: "mt-8" })}>
        Return to Home
      </Link>
    </div>
  );
}
