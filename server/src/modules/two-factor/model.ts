import { t } from "elysia";
import { isoDate, messageAnswer, nullable } from "../../lib/schema";
import { passwordField, secondFactorField } from "../auth/model";

export const twoFactorModel = {
  setup: t.Object({ password: passwordField }),
  enable: t.Object({ code: secondFactorField }),
  disable: t.Object({ password: passwordField, code: secondFactorField }),
  /** The password and a code, unless the session re-authenticated in the last 10 minutes. */
  recoveryCodes: t.Object({ password: t.Optional(passwordField), code: t.Optional(secondFactorField) }),
};

const recoveryCodesField = t.Array(t.String(), { description: "Shown once: each signs in once instead of a code" });

export const twoFactorAnswers = {
  status: t.Object({
    enabled: t.Boolean(),
    enabledAt: nullable(isoDate()),
    recoveryCodesLeft: t.Integer(),
    required: t.Boolean({ description: "The server requires this user to have it on (REQUIRE_ADMIN_2FA)" }),
  }),
  setup: t.Object({
    secret: t.String({ description: "The seed in base32, for typing into an app" }),
    otpauthUrl: t.String({ description: "otpauth://totp/… as in the QR code" }),
    qrCode: t.String({ description: "data: URL of an SVG QR code of otpauthUrl" }),
  }),
  enabled: t.Object({
    message: t.String(),
    recoveryCodes: recoveryCodesField,
    token: t.String({ description: "A new bearer token: every earlier one stopped working" }),
  }),
  message: messageAnswer,
  recoveryCodes: t.Object({ message: t.String(), recoveryCodes: recoveryCodesField }),
};
