import { expect, test } from "bun:test";
import { isEmailChange, validateProfile } from "./profile-validation";

test("a name of 2 characters and a valid e-mail pass", () => {
  expect(validateProfile({ name: "Al", email: "al@example.com" })).toEqual({});
});

test("a short name and a bad e-mail are both reported", () => {
  expect(validateProfile({ name: " A ", email: "al@" })).toEqual({
    name: "Name must be at least 2 characters",
    email: "Please enter a valid email address",
  });
});

test("a new e-mail needs the current password; the same e-mail in other case is no change", () => {
  expect(validateProfile({ name: "Al", email: "new@example.com", currentPassword: "" })).toEqual({
    currentPassword: "Enter your current password to change your e-mail",
  });
  expect(validateProfile({ name: "Al", email: "new@example.com", currentPassword: "secret1" })).toEqual({});
  expect(isEmailChange("al@example.com", " AL@example.com ")).toBe(false);
  expect(isEmailChange("al@example.com", "al2@example.com")).toBe(true);
});
