import { expect, test } from "bun:test";
import { validatePasswordChange } from "./password-change";

test("new and confirm must match", () => {
  expect(validatePasswordChange({ currentPassword: "old-pass", newPassword: "abcdef", confirmPassword: "abcdeg" })).toBe("New passwords do not match");
});

test("the new password needs at least 6 characters", () => {
  expect(validatePasswordChange({ currentPassword: "old-pass", newPassword: "abc", confirmPassword: "abc" })).toBe("Password must be at least 6 characters");
});

test("a mismatch is reported before the length", () => {
  expect(validatePasswordChange({ currentPassword: "old-pass", newPassword: "abc", confirmPassword: "abd" })).toBe("New passwords do not match");
});

test("the current password is required", () => {
  expect(validatePasswordChange({ currentPassword: "", newPassword: "abcdef", confirmPassword: "abcdef" })).toBe("Current password is required");
});

test("once confirmed with SSO, no current password is asked (members from SSO may know none)", () => {
  expect(validatePasswordChange({ currentPassword: "", newPassword: "abcdef", confirmPassword: "abcdef" }, true)).toBeNull();
  expect(validatePasswordChange({ currentPassword: "", newPassword: "abcdef", confirmPassword: "abcdeg" }, true)).toBe("New passwords do not match");
});

test("a matching password of 6 characters may be sent", () => {
  expect(validatePasswordChange({ currentPassword: "old-pass", newPassword: "abcdef", confirmPassword: "abcdef" })).toBeNull();
});
