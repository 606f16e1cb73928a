import { Link } from "wouter";

export function Footer() {
  return (
    <footer className="border-t border-slate-200 bg-white print:hidden">
      <div className="mx-auto flex max-w-7xl flex-col items-center justify-between gap-4 px-4 py-8 sm:flex-row sm:px-6 lg:px-8">
        <p className="text-sm text-slate-500">&copy; {new Date().getFullYear()} DBVault. Encrypted MongoDB backups.</p>
        <nav aria-label="Footer">
          <ul className="flex flex-wrap items-center gap-6 text-sm">
            <li>
              <Link href="/privacy" className="text-slate-600 hover:text-slate-900">
                Privacy
              </Link>
            </li>
            <li>
              <Link href="/terms" className="text-slate-600 hover:text-slate-900">
                Terms of Service
              </Link>
            </li>
            <li>
              <Link href="/contact" className="text-slate-600 hover:text-slate-900">
                Contact
              </Link>
            </li>
          </ul>
        </nav>
      </div>
    </footer>
  );
}
