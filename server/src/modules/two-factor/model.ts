import { t } from "elysia";
import { passwordField } from "../auth/model";

/** A 6-digit TOTP code or a recovery code, as typed. */
export const secondFactorField = t.String({ minLength: 6, maxLength: 32, error: "Enter the 6-digit code from your authenticator app" });

export const twoFactorModel = {
  setup: t.Object({ password: passwordField }),
  enable: t.Object({ code: secondFactorField }),
  disable: t.Object({ password: passwordField, code: secondFactorField }),
  recoveryCodes: t.Object({ code: secondFactorField }),
};
