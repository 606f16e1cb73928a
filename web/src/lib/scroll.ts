import { SCROLL_OFFSET_PX } from "../config/constants";

const prefersReducedMotion = () => typeof window !== "undefined" && window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;

/** Scrolls smoothly so the element sits `offset` pixels below the top (clear of the sticky bar). */
export function scrollToElement(target: Element | string, offset = SCROLL_OFFSET_PX): boolean {
  const element = typeof target === "string" ? document.getElementById(target) : target;
  if (!element) return false;
  const top = element.getBoundingClientRect().top + window.scrollY - offset;
  window.scrollTo({ top: Math.max(0, top), behavior: prefersReducedMotion() ? "auto" : "smooth" });
  return true;
}

/** Scrolls to the element (as scrollToElement) only when none of it is on screen: a phone's stacked layout. */
export function scrollToElementIfHidden(element: Element | null, offset = SCROLL_OFFSET_PX): boolean {
  if (!element) return false;
  const box = element.getBoundingClientRect();
  if (box.top < window.innerHeight && box.bottom > offset) return false;
  return scrollToElement(element, offset);
}

/**
 * Scrolls to the element with this id once it exists: pages load lazily, so the target may
 * appear a few frames after navigation. Gives up after `timeoutMs`.
 */
export function scrollToIdWhenReady(id: string, timeoutMs = 3000): () => void {
  let cancelled = false;
  const started = performance.now();
  const attempt = () => {
    if (cancelled) return;
    if (scrollToElement(id)) return;
    if (performance.now() - started < timeoutMs) requestAnimationFrame(attempt);
  };
  attempt();
  return () => {
    cancelled = true;
  };
}

/** The element id named by a URL hash ("#pricing" → "pricing"). */
export function idFromHash(hash: string): string | null {
  if (!hash || hash === "#") return null;
  try {
    return decodeURIComponent(hash.slice(1));
  } catch {
    return hash.slice(1);
  }
}
