// Debian's Chromium driven by playwright-core, started the way this machine allows.
import { type Browser, chromium } from "playwright-core";

/** Flags for a headless Chromium on a machine with a closed network. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  // Without these Chromium phones home, and this machine's closed network refuses it.
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Launches Chromium (CHROMIUM_PATH, default /usr/bin/chromium). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
}
