import type { Page } from "playwright-core";

/** The app's toast region (aria-live), where every confirmation and error lands. */
export const toasts = (page: Page) => page.getByTestId("toasts");

/** Waits for a toast saying exactly `text`. */
export const waitForToast = (page: Page, text: string) => toasts(page).getByText(text, { exact: true }).waitFor();
