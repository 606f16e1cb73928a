// What "fits a phone" means for a screen: the page is no wider than the viewport, and a control
// the user came for can be brought into view whole (not cut by the screen's edge or by a
// scrolling box, not covered by something else).
import type { Locator, Page } from "playwright-core";

export const PHONE = { width: 390, height: 844 } as const;

/** The page's width beyond the viewport, with the widest elements that cause it; null when it fits. */
export async function findOverflow(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const width = document.documentElement.scrollWidth;
    const viewport = document.documentElement.clientWidth;
    if (width <= viewport) return null;
    // The deepest elements reaching past the right edge name the culprit.
    const culprits = [...document.querySelectorAll("body *")]
      .filter(
        (el) => el.getBoundingClientRect().right > viewport + 0.5 && ![...el.children].some((child) => child.getBoundingClientRect().right > viewport + 0.5),
      )
      .slice(0, 3)
      .map((el) => `<${el.tagName.toLowerCase()} class="${String(el.getAttribute("class") ?? "").slice(0, 60)}">${(el.textContent ?? "").trim().slice(0, 40)}`);
    return `page is ${width} px wide in ${viewport}: ${culprits.join(" | ")}`;
  });
}

/** Why `locator` (its first match) cannot be seen whole after scrolling to it; null when it can. */
export async function findUnreachable(locator: Locator): Promise<string | null> {
  const target = locator.first();
  try {
    await target.waitFor({ state: "visible", timeout: 10_000 });
    await target.scrollIntoViewIfNeeded({ timeout: 5_000 });
  } catch (error) {
    return `not shown (${(error as Error).message.split("\n")[0]})`;
  }
  return target.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const inside = (outer: { left: number; right: number; top: number; bottom: number }) =>
      box.left >= outer.left - 0.5 && box.right <= outer.right + 0.5 && box.top >= outer.top - 0.5 && box.bottom <= outer.bottom + 0.5;
    if (!inside({ left: 0, top: 0, right: window.innerWidth, bottom: window.innerHeight }))
      return `outside the screen at x ${Math.round(box.left)}..${Math.round(box.right)}, y ${Math.round(box.top)}..${Math.round(box.bottom)}`;
    for (let parent = el.parentElement; parent; parent = parent.parentElement) {
      // A box the browser had to scroll sideways hides this control from a user who sees no hint.
      if (parent !== document.documentElement && parent !== document.body && parent.scrollLeft > 0)
        return `needs sideways scrolling in <${parent.tagName.toLowerCase()} class="${parent.className}">`;
      const style = getComputedStyle(parent);
      if (style.overflowX === "visible" && style.overflowY === "visible") continue;
      if (!inside(parent.getBoundingClientRect())) return `cut by a scrolling box <${parent.tagName.toLowerCase()} class="${parent.className}">`;
    }
    // A disabled button takes no pointer events (so a point lands behind it): ask as if it did.
    const pointerEvents = (el as HTMLElement).style.pointerEvents;
    (el as HTMLElement).style.pointerEvents = "auto";
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    (el as HTMLElement).style.pointerEvents = pointerEvents;
    if (!hit || !(hit === el || el.contains(hit))) return `covered by <${hit?.tagName.toLowerCase()} class="${hit?.getAttribute("class") ?? ""}">`;
    return null;
  });
}

/** True when two elements' boxes overlap (a button drawn over the text it belongs to). */
export async function overlaps(a: Locator, b: Locator): Promise<boolean> {
  const [first, second] = await Promise.all([a.first().boundingBox(), b.first().boundingBox()]);
  if (!first || !second) return false;
  return first.x < second.x + second.width && second.x < first.x + first.width && first.y < second.y + second.height && second.y < first.y + first.height;
}
