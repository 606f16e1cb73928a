// The toast queue (spec 2 "Toasts"): one visible at a time, 5 s each. A plain external store so
// anything (event handlers, the session timer, the API client's callbacks) can raise a toast.
import { TOAST_DURATION_MS, TOAST_LIMIT, TOAST_REMOVE_DELAY_MS } from "../../config/constants";

export type ToastVariant = "default" | "destructive" | "success";
export type ToastInput = {
  title: string;
  description?: string;
  variant?: ToastVariant;
  durationMs?: number;
  /**
   * While this toast shows, later ones do not replace it (they are dropped). For a toast that
   * ends what the user was doing, 'Session expired': the call that found the session over fails
   * right after, and its page's own failure toast ('Failed to save settings...') would otherwise
   * take the only place, on the sign-in page, telling the user the wrong thing.
   */
  keepOnTop?: boolean;
};
export type Toast = ToastInput & { id: number; open: boolean };

let toasts: Toast[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const removalTimers = new Map<number, ReturnType<typeof setTimeout>>();

function emit() {
  for (const listener of listeners) listener();
}

export function subscribeToasts(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function getToasts(): Toast[] {
  return toasts;
}

/** Shows a toast; with the limit of one, it replaces whatever was showing (unless that keeps on top). */
export function toast(input: ToastInput): number {
  const id = nextId++;
  if (toasts.some((t) => t.open && t.keepOnTop)) return id;
  const next: Toast = { durationMs: TOAST_DURATION_MS, variant: "default", ...input, id, open: true };
  toasts = [next, ...toasts].slice(0, TOAST_LIMIT);
  emit();
  return id;
}

/**
 * A failure toast that the next success takes back: after a retry works, the red 'Failed to
 * save...' does not stay on screen beside the green 'Saved!'.
 */
export function createRetractableToast() {
  let shown: number | null = null;
  return {
    show(input: ToastInput) {
      shown = toast(input);
    },
    retract() {
      if (shown !== null) dismissToast(shown);
      shown = null;
    },
  };
}

/** Closes a toast (or all); closed toasts are dropped from memory after the removal delay. */
export function dismissToast(id?: number) {
  toasts = toasts.map((t) => (id === undefined || t.id === id ? { ...t, open: false } : t));
  for (const t of toasts) {
    if (t.open || removalTimers.has(t.id)) continue;
    removalTimers.set(
      t.id,
      setTimeout(() => {
        removalTimers.delete(t.id);
        toasts = toasts.filter((x) => x.id !== t.id);
        emit();
      }, TOAST_REMOVE_DELAY_MS),
    );
  }
  emit();
}
