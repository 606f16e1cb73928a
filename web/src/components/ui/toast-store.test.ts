import { afterEach, describe, expect, test } from "bun:test";
import { dismissToast, getToasts, toast } from "./toast-store";

const visibleTitles = () =>
  getToasts()
    .filter((t) => t.open)
    .map((t) => t.title);

afterEach(() => dismissToast());

describe("toasts", () => {
  test("one at a time: a new toast replaces the one showing", () => {
    toast({ title: "Saved" });
    toast({ title: "Copied to clipboard!" });
    expect(visibleTitles()).toEqual(["Copied to clipboard!"]);
  });

  test("a toast kept on top is not replaced while it shows, and is once dismissed", () => {
    const expired = toast({ title: "Session expired", keepOnTop: true });
    toast({ title: "Failed to save settings. Please try again.", variant: "destructive" });
    expect(visibleTitles()).toEqual(["Session expired"]);
    dismissToast(expired);
    toast({ title: "Signed out" });
    expect(visibleTitles()).toEqual(["Signed out"]);
  });
});
