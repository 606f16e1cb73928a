// UnoCSS configuration for the web app (preset-wind4: Tailwind 4 compatible utilities).
// The CLI reads this file; @unocss/core has no defineConfig, so the type is imported instead.
import type { UserConfig } from "@unocss/core";
import presetWind4, { type Theme } from "@unocss/preset-wind4";

const config: UserConfig<Theme> = {
  presets: [presetWind4({ preflights: { reset: true } })],
  theme: {
    font: {
      sans: "'Inter Variable', ui-sans-serif, system-ui, -apple-system, 'Segoe UI', sans-serif",
      mono: "'JetBrains Mono Variable', ui-monospace, SFMono-Regular, Menlo, Consolas, monospace",
    },
  },
  shortcuts: {
    // One focus ring for every interactive element, shown for keyboard users only. Not named
    // "focus-ring": UnoCSS also reads that as the focus: variant of ring, a 1 px box after a click.
    "keyboard-focus-ring": "outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:ring-offset-2",
    container: "mx-auto w-full max-w-7xl px-4 sm:px-6 lg:px-8",
  },
};

export default config;
