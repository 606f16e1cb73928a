import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { cn } from "../../lib/cn";

type TooltipProps = {
  /** What shows on hover or keyboard focus. */
  content: ReactNode;
  children: ReactNode;
  className?: string;
};

/**
 * Extra detail on hover or focus. Placed with fixed coordinates under its trigger, so a table's
 * scrolling wrapper does not clip it; the trigger is focusable and described by it while open.
 */
export function Tooltip({ content, children, className }: TooltipProps) {
  const id = useId();
  const trigger = useRef<HTMLSpanElement>(null);
  const [place, setPlace] = useState<{ top: number; left: number } | null>(null);
  const show = () => {
    const rect = trigger.current?.getBoundingClientRect();
    if (rect) setPlace({ top: rect.bottom + 6, left: Math.max(8, Math.min(rect.left, window.innerWidth - 328)) });
  };
  const hide = () => setPlace(null);
  // Fixed under where its trigger was: once the page or a table scrolls, it would cover whatever
  // scrolled beneath it (a row's buttons, on a phone), so it goes.
  const open = place !== null;
  useEffect(() => {
    if (!open) return;
    const close = () => setPlace(null);
    window.addEventListener("scroll", close, { capture: true, passive: true });
    return () => window.removeEventListener("scroll", close, { capture: true });
  }, [open]);
  return (
    <span
      ref={trigger}
      tabIndex={0}
      className={cn("inline-flex cursor-help rounded-full focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500", className)}
      aria-describedby={place ? id : undefined}
      onMouseEnter={show}
      onMouseLeave={hide}
      onFocus={show}
      onBlur={hide}
      onKeyDown={(event) => event.key === "Escape" && hide()}
    >
      {children}
      {place ? (
        <span
          role="tooltip"
          id={id}
          style={{ position: "fixed", top: place.top, left: place.left }}
          className="z-50 w-max max-w-80 rounded-md bg-slate-900 px-3 py-2 text-left text-xs font-normal leading-relaxed text-white shadow-lg"
        >
          {content}
        </span>
      ) : null}
    </span>
  );
}
