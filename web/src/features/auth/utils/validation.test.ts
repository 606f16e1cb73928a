import { describe, expect, test } from "bun:test";
import { validateForgotPassword, validateLogin, validateRegistration, validateResetPassword } from "./validation";

describe("form validation (spec 5)", () => {
  test("sign-in needs a valid email and 6+ character password", () => {
    expect(validateLogin({ email: "nope", password: "123" })).toEqual({
      email: "Please enter a valid email address",
      password: "Password must be at least 6 characters",
    });
    expect(validateLogin({ email: "a@b.co", password: "123456" })).toEqual({});
  });

  test("registration messages land on the right field", () => {
    expect(validateRegistration({ name: "A", email: "a@b.co", password: "secret1", confirmPassword: "secret2" })).toEqual({
      name: "Name must be at least 2 characters",
      confirmPassword: "Passwords don't match",
    });
    expect(validateRegistration({ name: "Al", email: "a@b.co", password: "secret1", confirmPassword: "secret1" })).toEqual({});
  });

  test("forgot and reset password", () => {
    expect(validateForgotPassword({ email: "x@" })).toEqual({ email: "Please enter a valid email address" });
    expect(validateResetPassword({ password: "12345", confirmPassword: "12345" })).toEqual({ password: "Password must be at least 6 characters" });
    expect(validateResetPassword({ password: "123456", confirmPassword: "1234567" })).toEqual({ confirmPassword: "Passwords don't match" });
  });
});
