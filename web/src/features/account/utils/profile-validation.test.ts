import { expect, test } from "bun:test";
import { validateProfile } from "./profile-validation";

test("a name of 2 characters and a valid e-mail pass", () => {
  expect(validateProfile({ name: "Al", email: "al@example.com" })).toEqual({});
});

test("a short name and a bad e-mail are both reported", () => {
  expect(validateProfile({ name: " A ", email: "al@" })).toEqual({
    name: "Name must be at least 2 characters",
    email: "Please enter a valid email address",
  });
});
