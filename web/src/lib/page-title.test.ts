import { expect, test } from "bun:test";
import { formatPageTitle } from "./page-title";

test("the page title is the product name followed by the page name", () => {
  expect(formatPageTitle("Features")).toBe("DBVault - Features");
  expect(formatPageTitle("")).toBe("DBVault");
});
