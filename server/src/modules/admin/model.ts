import { t } from "elysia";
import { userRoles, userStatuses } from "@db/schema";
import { oneOf } from "../../lib/schema";
import { emailField } from "../auth/model";

export const adminModel = {
  idParams: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
  userUpdate: t.Object(
    {
      plan: t.Optional(t.String({ minLength: 1, maxLength: 64, error: "plan must be a plan id" })),
      role: t.Optional(oneOf(userRoles, "role must be user or admin")),
      status: t.Optional(oneOf(userStatuses, "status must be active or inactive")),
      email: t.Optional(emailField),
    },
    { minProperties: 1, error: "Send one of plan, role, status or email" },
  ),
  ban: t.Object({
    isBanned: t.Boolean({ error: "isBanned must be true or false" }),
    banReason: t.Optional(t.Union([t.String({ maxLength: 500 }), t.Null()], { error: "banReason must be text or null" })),
  }),
};
