// The profile's password change rules (spec 5), checked before anything is sent.
import { MIN_PASSWORD_LENGTH } from "../../../config/constants";

export type PasswordChangeInput = { currentPassword: string; newPassword: string; confirmPassword: string };

/**
 * The first problem with a password change, in the spec's order, or null when it may be sent.
 * `confirmedWithSso`: the member confirmed it is them at their provider, so no current password is asked.
 */
export function validatePasswordChange(input: PasswordChangeInput, confirmedWithSso = false): string | null {
  if (!confirmedWithSso && !input.currentPassword) return "Current password is required";
  if (input.newPassword !== input.confirmPassword) return "New passwords do not match";
  if (input.newPassword.length < MIN_PASSWORD_LENGTH) return `Password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  return null;
}
