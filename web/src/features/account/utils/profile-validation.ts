// The Account tab's checks, with the messages of spec 5 (the server checks the same).
import { MIN_NAME_LENGTH } from "../../../config/constants";

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Field messages for a name and e-mail change; empty when both may be sent. */
export function validateProfile(input: { name: string; email: string }): { name?: string; email?: string } {
  const errors: { name?: string; email?: string } = {};
  if (input.name.trim().length < MIN_NAME_LENGTH) errors.name = `Name must be at least ${MIN_NAME_LENGTH} characters`;
  if (!EMAIL_PATTERN.test(input.email.trim())) errors.email = "Please enter a valid email address";
  return errors;
}
