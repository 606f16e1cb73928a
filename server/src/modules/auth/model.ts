import { t } from "elysia";
import { userRoles } from "@db/schema";
import { isoDate, messageAnswer, nullable, oneOf } from "../../lib/schema";

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
    /** The `deviceToken` this browser got at its last sign-in to the account: the owner is not slowed down by a guesser. */
    device: t.Optional(t.String({ maxLength: 200, error: "device must be the deviceToken of an earlier sign-in" })),
  }),
  forgotPassword: t.Object({ email: emailField }),
  resetPassword: t.Object({
    password: passwordField,
    revokeApiTokens: t.Optional(
      t.Boolean({
        description: "Also revoke every API token of the account, in every organization (default true: whoever had the account may have made them)",
        error: "revokeApiTokens must be true or false",
      }),
    ),
  }),
  logout: t.Optional(
    t.Object({
      revokeApiTokens: t.Optional(
        t.Boolean({
          description: "Also revoke every API token of the account, in every organization (default false: signing out of this browser leaves scripts working)",
          error: "revokeApiTokens must be true or false",
        }),
      ),
    }),
  ),
  resetTokenParams: t.Object({ token: t.String({ minLength: 1, maxLength: 200, error: "Invalid reset token" }) }),
};

/** The user as sign-in answers it (spec section 3). */
export const sessionUserAnswer = t.Object({
  id: t.String(),
  _id: t.String(),
  email: t.String(),
  name: t.String(),
  role: oneOf(userRoles, "role"),
  apiKey: t.String({ description: "The key agents sign in with (dbv_…)" }),
  isBanned: t.Boolean(),
  banReason: nullable(t.String()),
  bannedAt: nullable(isoDate()),
  twoFactorEnabled: t.Boolean(),
  twoFactorRequired: t.Boolean({ description: "The server requires this user to turn two-factor sign-in on (REQUIRE_ADMIN_2FA)" }),
});

export const authAnswers = {
  session: t.Object({
    token: t.String({ description: "Bearer token (JWT) for every other call" }),
    user: sessionUserAnswer,
    deviceToken: t.String({
      description:
        "Send it back as `device` with this browser's next sign-in to this account: the owner's browser is not held back by someone guessing the password",
    }),
  }),
  message: messageAnswer,
  resetToken: t.Object({ valid: t.Boolean(), message: t.String() }),
};

/** A 6-digit TOTP code or a recovery code, as typed. */
export const secondFactorField = t.String({ minLength: 6, maxLength: 32, error: "Enter the 6-digit code from your authenticator app" });
