import { t } from "elysia";
import { auditActions } from "@db/schema";
import { emailField, nameField, passwordField } from "../auth/model";

export const userModel = {
  update: t.Object({ name: t.Optional(nameField), email: t.Optional(emailField) }),
  password: t.Object({
    currentPassword: t.String({ minLength: 1, maxLength: 1024, error: "Current password is required" }),
    newPassword: passwordField,
  }),
  plan: t.Object({ plan: t.String({ minLength: 1, maxLength: 64, error: "plan must be a plan id" }) }),
  auditQuery: t.Object({
    page: t.Optional(t.Numeric({ multipleOf: 1, minimum: 1, maximum: 100000, error: "page must be a whole number from 1" })),
    action: t.Optional(
      t.Union([t.Literal(""), t.Literal("all"), ...auditActions.map((a) => t.Literal(a))], {
        error: "action must be empty, 'all' or one of the audit actions",
      }),
    ),
  }),
};
