import { Link, useLocation } from "wouter";
import { usePageTitle } from "../../lib/page-title";

// The signed-in pages are built in a later issue; until then each route shows its heading so
// navigation and the guards in front of it work.
const PAGE_NAMES: Record<string, string> = {
  "/dashboard": "Dashboard",
  "/settings": "Settings",
  "/profile": "My Profile",
  "/audit-logs": "Audit Logs",
  "/admin": "Admin Dashboard",
};

export default function MemberPlaceholderPage() {
  const [location] = useLocation();
  const name = PAGE_NAMES[location] ?? "Dashboard";
  usePageTitle(name);
  return (
    <div className="mx-auto max-w-7xl px-4 py-12 sm:px-6 lg:px-8">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">{name}</h1>
      <p className="mt-4 text-slate-600">This page is on its way.</p>
      {location === "/admin" ? (
        <p className="mt-4">
          <Link href="/admin/kb" className="font-medium text-indigo-600 hover:text-indigo-500">
            Knowledge Base Management
          </Link>
        </p>
      ) : null}
    </div>
  );
}
