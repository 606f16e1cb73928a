// The profile's password change rules (spec 5), checked before anything is sent.
import { MIN_PASSWORD_LENGTH } from "../../../config/constants";

export type PasswordChangeInput = { currentPassword: string; newPassword: string; confirmPassword: string };

/** The first problem with a password change, in the spec's order, or null when it may be sent. */
export function validatePasswordChange(input: PasswordChangeInput): string | null {
  if (!input.currentPassword) return "Current password is required";
  if (input.newPassword !== input.confirmPassword) return "New passwords do not match";
  if (input.newPassword.length < MIN_PASSWORD_LENGTH) return `Password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  return null;
}
