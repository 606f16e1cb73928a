import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { TOAST_HOTKEY, TOAST_SWIPE_THRESHOLD_PX } from "../../config/constants";
import { cn } from "../../lib/cn";
import { dismissToast, getToasts, subscribeToasts, type Toast } from "./toast-store";

const VARIANT_CLASSES = {
  default: "border-slate-200 bg-white text-slate-900",
  destructive: "border-red-600 bg-red-600 text-white",
  success: "border-emerald-600 bg-emerald-600 text-white",
};

function ToastItem({ toast }: { toast: Toast }) {
  const [paused, setPaused] = useState(false);
  const [offset, setOffset] = useState(0);
  const swipeStart = useRef<number | null>(null);

  // Auto-dismiss, paused while hovered or focused so a reader is not cut short.
  useEffect(() => {
    if (paused || !toast.durationMs) return;
    const timer = setTimeout(() => dismissToast(toast.id), toast.durationMs);
    return () => clearTimeout(timer);
  }, [paused, toast.id, toast.durationMs]);

  const variant = toast.variant ?? "default";
  return (
    <li
      role={variant === "destructive" ? "alert" : "status"}
      aria-atomic="true"
      data-variant={variant}
      className={cn(
        "pointer-events-auto relative flex w-full items-start gap-3 rounded-lg border p-4 pr-10 shadow-lg transition-transform",
        VARIANT_CLASSES[variant],
      )}
      style={{ transform: offset ? `translateX(${offset}px)` : undefined }}
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      onFocus={() => setPaused(true)}
      onBlur={() => setPaused(false)}
      onPointerDown={(event) => {
        swipeStart.current = event.clientX;
      }}
      onPointerMove={(event) => {
        if (swipeStart.current !== null) setOffset(Math.max(0, event.clientX - swipeStart.current));
      }}
      onPointerUp={() => {
        if (offset > TOAST_SWIPE_THRESHOLD_PX) dismissToast(toast.id);
        swipeStart.current = null;
        setOffset(0);
      }}
      onPointerCancel={() => {
        swipeStart.current = null;
        setOffset(0);
      }}
    >
      <div className="grid gap-1">
        <p className="text-sm font-semibold">{toast.title}</p>
        {toast.description ? <p className="text-sm opacity-90">{toast.description}</p> : null}
      </div>
      <button
        type="button"
        aria-label="Close notification"
        onClick={() => dismissToast(toast.id)}
        className="absolute right-2 top-2 rounded-md p-1 opacity-70 hover:opacity-100"
      >
        <svg aria-hidden="true" viewBox="0 0 16 16" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="2">
          <path d="M4 4l8 8M12 4l-8 8" />
        </svg>
      </button>
    </li>
  );
}

/** Where toasts appear; F8 moves keyboard focus to it. */
export function Toaster() {
  const toasts = useSyncExternalStore(subscribeToasts, getToasts, getToasts);
  const listRef = useRef<HTMLOListElement>(null);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === TOAST_HOTKEY) {
        event.preventDefault();
        listRef.current?.focus();
      }
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, []);

  return (
    <section aria-label={`Notifications (${TOAST_HOTKEY})`} className="pointer-events-none fixed bottom-0 right-0 z-[100] w-full p-4 sm:max-w-sm">
      <ol ref={listRef} tabIndex={-1} className="flex flex-col gap-2 outline-none" data-testid="toasts">
        {toasts
          .filter((t) => t.open)
          .map((t) => (
            <ToastItem key={t.id} toast={t} />
          ))}
      </ol>
    </section>
  );
}
