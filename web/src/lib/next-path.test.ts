import { expect, test } from "bun:test";
import { readNextPath, withQuery } from "./next-path";

test("next leads only to a path of this site", () => {
  expect(readNextPath("?next=%2Finvite%2Fabc")).toBe("/invite/abc");
  expect(readNextPath("next=/invite/abc")).toBe("/invite/abc");
  for (const search of ["", "?next=", "?next=https://evil.example", "?next=//evil.example/x", "?next=/%5Cevil.example", "?next=javascript:alert(1)"]) {
    expect(`${search} → ${readNextPath(search)}`).toBe(`${search} → null`);
  }
});

test("withQuery leaves out empty parameters", () => {
  expect(withQuery("/register", { next: "/invite/abc", email: "a@b.co" })).toBe("/register?next=%2Finvite%2Fabc&email=a%40b.co");
  expect(withQuery("/login", { next: null })).toBe("/login");
});
