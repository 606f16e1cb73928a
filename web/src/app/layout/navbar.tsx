import { useEffect, useState } from "react";
import { Link, useLocation } from "wouter";
import { Button, buttonClasses } from "../../components/ui/button";
import { DropdownMenu, type MenuLink } from "../../components/ui/dropdown-menu";
import { HashLink } from "../../components/navigation/hash-link";
import { cn } from "../../lib/cn";
import { useSession } from "../../lib/auth/use-session";
import { OrganizationSwitcher } from "../../features/organizations/components/organization-switcher";

const HELP_LINKS: MenuLink[] = [
  { label: "Knowledge Base", href: "/kb" },
  { label: "Terms of Service", href: "/terms" },
  { label: "Privacy Policy", href: "/privacy" },
  { label: "Contact", href: "/contact" },
];

type NavItem = { label: string; href: string; hash?: boolean };

const PUBLIC_ITEMS: NavItem[] = [
  { label: "Home", href: "/" },
  { label: "About", href: "/about" },
  { label: "Features", href: "/features" },
  { label: "Pricing", href: "/#pricing", hash: true },
];

const MEMBER_ITEMS: NavItem[] = [
  { label: "Dashboard", href: "/dashboard" },
  { label: "Settings", href: "/settings" },
  { label: "Profile", href: "/profile" },
  { label: "Audit Logs", href: "/audit-logs" },
];

const linkClasses = "rounded-md px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-100 hover:text-slate-900 aria-[current=page]:text-indigo-700";

function NavLink({ item, className, onNavigate }: { item: NavItem; className?: string; onNavigate?: () => void }) {
  const [location] = useLocation();
  if (item.hash) {
    return (
      <HashLink href={item.href} className={className} onClick={onNavigate}>
        {item.label}
      </HashLink>
    );
  }
  const current = item.href === "/" ? location === "/" : location === item.href || location.startsWith(`${item.href}/`);
  return (
    <Link href={item.href} className={className} aria-current={current ? "page" : undefined} onClick={onNavigate}>
      {item.label}
    </Link>
  );
}

function Logo() {
  return (
    <Link href="/" className="flex items-center gap-2 text-lg font-bold text-slate-900">
      <span aria-hidden="true" className="inline-flex h-8 w-8 items-center justify-center rounded-lg bg-indigo-600 text-white">
        <svg viewBox="0 0 24 24" className="h-4.5 w-4.5" fill="none" stroke="currentColor" strokeWidth="2.2">
          <path d="M12 3l7 3v5c0 4.5-3 8.3-7 10-4-1.7-7-5.5-7-10V6z" />
          <path d="M9 12l2 2 4-4" />
        </svg>
      </span>
      DBVault
    </Link>
  );
}

export function Navbar() {
  const { isLoggedIn, isAdmin, logout, loading } = useSession();
  const [location] = useLocation();
  const [mobileOpen, setMobileOpen] = useState(false);

  // A navigation closes the mobile menu.
  useEffect(() => setMobileOpen(false), [location]);

  // Until the stored session is read, neither bar: a signed-in user must not see 'Log in' first.
  const items = loading ? [] : isLoggedIn ? [...MEMBER_ITEMS, ...(isAdmin ? [{ label: "Admin", href: "/admin" }] : [])] : PUBLIC_ITEMS;
  const closeMobile = () => setMobileOpen(false);

  return (
    <header className="sticky top-0 z-40 border-b border-slate-200 bg-white/95 backdrop-blur print:hidden">
      <nav aria-label="Main" className="mx-auto flex h-16 max-w-7xl items-center justify-between px-4 sm:px-6 lg:px-8">
        <Logo />
        <div className="hidden items-center gap-1 md:flex">
          {items.map((item) => (
            <NavLink key={item.href} item={item} className={linkClasses} />
          ))}
          <DropdownMenu label="Help" items={HELP_LINKS} />
        </div>
        <div className="hidden items-center gap-2 md:flex">
          {loading ? null : isLoggedIn ? (
            <>
              <OrganizationSwitcher className="max-w-48 xl:max-w-80" />
              <Button variant="outline" size="sm" onClick={() => logout()}>
                Log out
              </Button>
            </>
          ) : (
            <>
              <Link href="/login" className={buttonClasses({ variant: "ghost", size: "sm" })}>
                Log in
              </Link>
              <Link href="/register" className={buttonClasses({ size: "sm" })}>
                Sign up
              </Link>
            </>
          )}
        </div>
        <button
          type="button"
          className="inline-flex items-center justify-center rounded-md p-2 text-slate-700 hover:bg-slate-100 md:hidden"
          aria-controls="mobile-menu"
          aria-expanded={mobileOpen}
          aria-label={mobileOpen ? "Close main menu" : "Open main menu"}
          onClick={() => setMobileOpen((open) => !open)}
        >
          <svg aria-hidden="true" viewBox="0 0 24 24" className="h-6 w-6" fill="none" stroke="currentColor" strokeWidth="2">
            {mobileOpen ? <path d="M6 6l12 12M18 6L6 18" /> : <path d="M4 7h16M4 12h16M4 17h16" />}
          </svg>
        </button>
      </nav>
      <div id="mobile-menu" hidden={!mobileOpen} className="border-t border-slate-200 bg-white px-4 pb-4 pt-2 md:hidden">
        <ul className="space-y-1">
          {items.map((item) => (
            <li key={item.href}>
              <NavLink item={item} className={cn(linkClasses, "block")} onNavigate={closeMobile} />
            </li>
          ))}
        </ul>
        <p className="mt-3 px-3 text-xs font-semibold uppercase tracking-wide text-slate-500">Help</p>
        <ul className="mt-1 space-y-1">
          {HELP_LINKS.map((link) => (
            <li key={link.href}>
              <Link href={link.href} className={cn(linkClasses, "block")} onClick={closeMobile}>
                {link.label}
              </Link>
            </li>
          ))}
        </ul>
        <div className="mt-4 flex gap-2 border-t border-slate-200 pt-4">
          {loading ? null : isLoggedIn ? (
            <>
              <OrganizationSwitcher className="flex-1" />
              <Button variant="outline" className="w-full" onClick={() => logout()}>
                Log out
              </Button>
            </>
          ) : (
            <>
              <Link href="/login" className={buttonClasses({ variant: "outline", className: "flex-1" })} onClick={closeMobile}>
                Log in
              </Link>
              <Link href="/register" className={buttonClasses({ className: "flex-1" })} onClick={closeMobile}>
                Sign up
              </Link>
            </>
          )}
        </div>
      </div>
    </header>
  );
}
