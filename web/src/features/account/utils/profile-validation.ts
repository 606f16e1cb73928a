// The Account tab's checks, with the messages of spec 5 (the server checks the same).
import { MIN_NAME_LENGTH } from "../../../config/constants";

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

type ProfileErrors = { name?: string; email?: string; currentPassword?: string };

/** Whether the typed e-mail is another address than the account's (case and spaces aside). */
export const isEmailChange = (current: string, typed: string) => typed.trim().toLowerCase() !== current.trim().toLowerCase();

/**
 * Field messages for a name and e-mail change; empty when they may be sent. `currentPassword` is
 * checked when given (an e-mail change needs it).
 */
export function validateProfile(input: { name: string; email: string; currentPassword?: string }): ProfileErrors {
  const errors: ProfileErrors = {};
  if (input.name.trim().length < MIN_NAME_LENGTH) errors.name = `Name must be at least ${MIN_NAME_LENGTH} characters`;
  if (!EMAIL_PATTERN.test(input.email.trim())) errors.email = "Please enter a valid email address";
  if (input.currentPassword !== undefined && input.currentPassword === "") errors.currentPassword = "Enter your current password to change your e-mail";
  return errors;
}
