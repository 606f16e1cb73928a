import { t } from "elysia";
import { auditActions, memberRoles, userStatuses } from "@db/schema";
import { isoDate, nullable, oneOf } from "../../lib/schema";
import { emailField, nameField, passwordField, sessionUserAnswer } from "../auth/model";
import { givenCode } from "../reauthentication/model";

const currentPasswordField = t.String({ minLength: 1, maxLength: 1024, error: "Current password is required" });

export const userModel = {
  update: t.Object({
    name: t.Optional(nameField),
    email: t.Optional(emailField),
    /** Needed to change the e-mail, unless the session re-authenticated in the last 10 minutes. */
    currentPassword: t.Optional(currentPasswordField),
    code: givenCode,
  }),
  password: t.Object({
    /** Unless the session re-authenticated in the last 10 minutes (members from SSO may know none). */
    currentPassword: t.Optional(currentPasswordField),
    newPassword: passwordField,
    code: givenCode,
    rotateApiKey: t.Optional(
      t.Boolean({
        description: "Also replace the API key (default true): the old one stops registering agents; agents already set up keep running",
        error: "rotateApiKey must be true or false",
      }),
    ),
    revokeApiTokens: t.Optional(
      t.Boolean({
        description:
          "Also revoke every API token of the account, in every organization (default false: scripts keep working; the security e-mail lists the tokens)",
        error: "revokeApiTokens must be true or false",
      }),
    ),
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

const profileAnswer = t.Composite([
  sessionUserAnswer,
  t.Object({
    plan: nullable(t.String({ description: "The plan's id" })),
    storageUsed: t.Number({ description: "Bytes of stored backups" }),
    status: oneOf(userStatuses, "status"),
    createdAt: isoDate(),
  }),
]);

/** A plan's limits (storage in bytes, frequency and retention in hours). */
export const planLimitsAnswer = t.Object({
  _id: t.String(),
  id: t.String(),
  name: t.String(),
  price: t.Number(),
  storageLimit: t.Number(),
  dbLimit: t.Integer(),
  frequencyLimit: t.Integer(),
  retentionLimit: t.Integer(),
  pitrWindowHours: t.Integer(),
});

export const userAnswers = {
  profile: profileAnswer,
  plan: t.Composite([planLimitsAnswer, t.Object({ storageUsed: t.Number() })]),
  planChanged: t.Object({ message: t.String(), plan: planLimitsAnswer }),
  profileUpdated: t.Object({
    message: t.String(),
    user: profileAnswer,
    pendingEmail: nullable(t.String({ description: "A new e-mail waiting for its confirmation link to be opened" })),
  }),
  passwordChanged: t.Object({
    message: t.String(),
    token: t.String({ description: "A new bearer token: every earlier one stopped working" }),
    apiKey: t.Optional(t.String({ description: "The new API key, when the change replaced it (rotateApiKey)" })),
    revokedApiTokens: t.Integer({ description: "How many API tokens the change revoked (revokeApiTokens)" }),
  }),
  auditLogs: t.Object({
    logs: t.Array(
      t.Object({
        _id: t.String(),
        id: t.String(),
        timestamp: isoDate(),
        action: oneOf(auditActions, "action"),
        details: t.Record(t.String(), t.Unknown()),
        actor: t.Nullable(
          t.Object({ id: t.Nullable(t.String()), name: t.Nullable(t.String()), email: t.Nullable(t.String()), role: oneOf(memberRoles, "role") }),
        ),
      }),
    ),
    pagination: t.Object({ total: t.Integer(), page: t.Integer(), pages: t.Integer(), limit: t.Integer() }),
  }),
  auditActions: t.Array(oneOf(auditActions, "action")),
};
