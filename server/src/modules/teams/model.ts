import { t } from "elysia";
import { memberRoles } from "@db/schema";
import { isoDate, nullable, oneOf } from "../../lib/schema";
import { emailField } from "../auth/model";
import { passwordField } from "../auth/model";
import { givenCode } from "../reauthentication/model";

export const MAX_ORGANIZATION_NAME_LENGTH = 100;

const roleError = `role must be one of ${memberRoles.join(", ")}`;
const role = oneOf(memberRoles, roleError);
const nameField = t.String({
  minLength: 1,
  maxLength: MAX_ORGANIZATION_NAME_LENGTH,
  pattern: "\\S",
  error: `name must be 1 to ${MAX_ORGANIZATION_NAME_LENGTH} characters, not only spaces`,
});
const idParam = (name: string) => t.String({ minLength: 1, maxLength: 64, error: `${name} must be an id` });

export const organizationModel = {
  create: t.Object({ name: nameField }),
  rename: t.Object({ name: nameField }),
  memberParams: t.Object({ userId: idParam("userId") }),
  /** `password` and `code`: the re-authentication a change making or demoting an owner needs (or a stamped session). */
  changeRole: t.Object({ role, password: t.Optional(passwordField), code: givenCode }),
  transfer: t.Object({ userId: idParam("userId"), password: t.Optional(passwordField), code: givenCode }),
  invite: t.Object({ email: emailField, role, password: t.Optional(passwordField), code: givenCode }),
  invitationParams: t.Object({ id: idParam("id") }),
  /** The link's token: 32 random bytes in base64url (auth/service.ts newLinkToken). */
  tokenParams: t.Object({ token: t.String({ minLength: 1, maxLength: 200, error: "This invitation link is not valid." }) }),
};

const organization = t.Object({
  id: t.String(),
  name: t.String(),
  personal: t.Boolean({ description: "The account's own organization, created with it; a team otherwise" }),
  role: oneOf(memberRoles, "role"),
});

const member = t.Object({
  userId: t.String(),
  name: t.String(),
  email: t.String(),
  role: oneOf(memberRoles, "role"),
  joinedAt: isoDate(),
  you: t.Boolean({ description: "The caller's own membership" }),
});

const invitation = t.Object({
  id: t.String(),
  email: t.String(),
  role: oneOf(memberRoles, "role"),
  invitedBy: nullable(t.String({ description: "The inviter's name or e-mail; null once their account is gone" })),
  createdAt: isoDate(),
  expiresAt: isoDate(),
});

export const invitationStatuses = ["pending", "expired", "accepted", "revoked"] as const;

export const organizationAnswers = {
  organization,
  list: t.Array(organization),
  members: t.Array(member),
  member,
  invitations: t.Array(invitation),
  invitation,
  preview: t.Object({
    organizationName: t.String(),
    role: oneOf(memberRoles, "role"),
    email: t.String({ description: "The invited e-mail: only an account with it can accept" }),
    invitedBy: nullable(t.String()),
    expiresAt: isoDate(),
    status: oneOf(invitationStatuses, "status"),
  }),
  accepted: t.Object({ message: t.String(), organization }),
};
