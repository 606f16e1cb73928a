import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { Link } from "wouter";
import { cn } from "../../lib/cn";

export type MenuLink = { label: string; href: string };

/**
 * A menu button with a list of links (WAI-ARIA menu button pattern): Enter, Space or ArrowDown
 * opens it on the first item, arrows/Home/End move, Escape closes and returns focus, Tab leaves.
 */
export function DropdownMenu({ label, items, className }: { label: ReactNode; items: MenuLink[]; className?: string }) {
  const [open, setOpen] = useState(false);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);
  const menuId = useId();

  const focusItem = (index: number) => {
    const links = menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]');
    if (!links?.length) return;
    links[(index + links.length) % links.length]?.focus();
  };

  useEffect(() => {
    if (!open) return;
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!menuRef.current?.contains(target) && !buttonRef.current?.contains(target)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointerDown);
    return () => document.removeEventListener("pointerdown", onPointerDown);
  }, [open]);

  const openAndFocus = (index: number) => {
    setOpen(true);
    requestAnimationFrame(() => focusItem(index));
  };

  const onMenuKeyDown = (event: React.KeyboardEvent) => {
    const links = [...(menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const current = links.indexOf(document.activeElement as HTMLElement);
    switch (event.key) {
      case "ArrowDown":
        event.preventDefault();
        focusItem(current + 1);
        break;
      case "ArrowUp":
        event.preventDefault();
        focusItem(current - 1);
        break;
      case "Home":
        event.preventDefault();
        focusItem(0);
        break;
      case "End":
        event.preventDefault();
        focusItem(links.length - 1);
        break;
      case "Escape":
        event.preventDefault();
        setOpen(false);
        buttonRef.current?.focus();
        break;
      case "Tab":
        setOpen(false);
        break;
    }
  };

  return (
    <div className={cn("relative", className)}>
      <button
        ref={buttonRef}
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => (open ? setOpen(false) : openAndFocus(0))}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown") {
            event.preventDefault();
            openAndFocus(0);
          } else if (event.key === "ArrowUp") {
            event.preventDefault();
            openAndFocus(-1);
          }
        }}
        className="inline-flex items-center gap-1 rounded-md px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-100 hover:text-slate-900"
      >
        {label}
        <svg
          aria-hidden="true"
          viewBox="0 0 16 16"
          className={cn("h-4 w-4 transition-transform", open && "rotate-180")}
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
        >
          <path d="M4 6l4 4 4-4" />
        </svg>
      </button>
      <div
        ref={menuRef}
        id={menuId}
        role="menu"
        hidden={!open}
        onKeyDown={onMenuKeyDown}
        className="absolute right-0 z-50 mt-2 w-56 rounded-lg border border-slate-200 bg-white py-1 shadow-lg"
      >
        {items.map((item) => (
          <Link
            key={item.href}
            href={item.href}
            role="menuitem"
            tabIndex={-1}
            onClick={() => setOpen(false)}
            className="block px-4 py-2 text-sm text-slate-700 hover:bg-slate-100 focus:bg-slate-100"
          >
            {item.label}
          </Link>
        ))}
      </div>
    </div>
  );
}
