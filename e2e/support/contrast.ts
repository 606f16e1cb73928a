// WCAG 2 contrast of the text shown inside a locator's matches: each element with text of its own,
// its colour against the backgrounds behind it (read through a canvas, so oklch and alpha work).
import type { Locator } from "playwright-core";

/** "text (ratio:1)" for each text under 4.5:1 (3:1 when large), in document order; [] when all pass. */
export async function findLowContrast(locator: Locator): Promise<string[]> {
  return locator.evaluateAll((roots) => {
    const canvas = document.createElement("canvas");
    canvas.width = 1;
    canvas.height = 1;
    const paint = canvas.getContext("2d", { willReadFrequently: true })!;
    const rgba = (color: string): [number, number, number, number] => {
      paint.clearRect(0, 0, 1, 1);
      paint.fillStyle = "#000";
      paint.fillStyle = color;
      paint.fillRect(0, 0, 1, 1);
      const [r, g, b, a] = paint.getImageData(0, 0, 1, 1).data;
      return [r!, g!, b!, a! / 255];
    };
    const over = (top: [number, number, number, number], bottom: [number, number, number]): [number, number, number] => [
      top[0] * top[3] + bottom[0] * (1 - top[3]),
      top[1] * top[3] + bottom[1] * (1 - top[3]),
      top[2] * top[3] + bottom[2] * (1 - top[3]),
    ];
    const luminance = ([r, g, b]: [number, number, number]) => {
      const channel = (value: number) => {
        const c = value / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const backgroundOf = (element: Element): [number, number, number] => {
      const layers: [number, number, number, number][] = [];
      for (let at: Element | null = element; at; at = at.parentElement) {
        const layer = rgba(getComputedStyle(at).backgroundColor);
        if (layer[3] > 0) layers.push(layer);
        if (layer[3] >= 1) break;
      }
      return layers.reduceRight<[number, number, number]>((below, layer) => over(layer, below), [255, 255, 255]);
    };
    const found: string[] = [];
    for (const root of roots)
      for (const element of [root, ...root.querySelectorAll("*")]) {
        const text = [...element.childNodes]
          .filter((node) => node.nodeType === Node.TEXT_NODE)
          .map((node) => node.textContent ?? "")
          .join("")
          .trim();
        if (!text || element.closest(".sr-only") || element.getClientRects().length === 0) continue;
        const style = getComputedStyle(element);
        if (style.visibility === "hidden") continue;
        const background = backgroundOf(element);
        const foreground = over(rgba(style.color), background);
        const [light, dark] = [luminance(foreground), luminance(background)].sort((a, b) => b - a) as [number, number];
        const ratio = (light + 0.05) / (dark + 0.05);
        const size = Number.parseFloat(style.fontSize);
        const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
        if (ratio < (large ? 3 : 4.5)) found.push(`${text.slice(0, 40)} (${ratio.toFixed(2)}:1)`);
      }
    return found;
  });
}
