import { t } from "elysia";

// The messages are those of spec section 5, so the server and the web forms say the same thing.
export const EMAIL_PATTERN = "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$";
export const emailField = t.String({ pattern: EMAIL_PATTERN, maxLength: 254, error: "Please enter a valid email address" });
export const passwordField = t.String({ minLength: 6, maxLength: 1024, error: "Password must be at least 6 characters" });
export const nameField = t.String({ minLength: 2, maxLength: 100, error: "Name must be at least 2 characters" });

export const authModel = {
  register: t.Object({ name: nameField, email: emailField, password: passwordField }),
  login: t.Object({
    email: emailField,
    password: passwordField,
    /** Required when the account has two-factor sign-in on: a 6-digit code or a recovery code. */
    code: t.Optional(t.String({ minLength: 1, maxLength: 32, error: "Enter the 6-digit code from your authenticator app" })),
  }),
  forgotPassword: t.Object({ email: emailField }),
  resetPassword: t.Object({ password: passwordField }),
  resetTokenParams: t.Object({ token: t.String({ minLength: 1, maxLength: 200, error: "Invalid reset token" }) }),
};
