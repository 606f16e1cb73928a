// Form rules and messages of spec section 5.
import { MIN_NAME_LENGTH, MIN_PASSWORD_LENGTH } from "../../../config/constants";

export type FieldErrors<K extends string> = Partial<Record<K, string>>;

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const MESSAGES = {
  email: "Please enter a valid email address",
  password: `Password must be at least ${MIN_PASSWORD_LENGTH} characters`,
  name: `Name must be at least ${MIN_NAME_LENGTH} characters`,
  confirmPassword: "Passwords don't match",
};

const emailError = (email: string) => (EMAIL_PATTERN.test(email.trim()) ? undefined : MESSAGES.email);
const passwordError = (password: string) => (password.length >= MIN_PASSWORD_LENGTH ? undefined : MESSAGES.password);

function compact<K extends string>(errors: Record<K, string | undefined>): FieldErrors<K> {
  return Object.fromEntries(Object.entries(errors).filter(([, message]) => message)) as FieldErrors<K>;
}

export function validateLogin(input: { email: string; password: string }) {
  return compact({ email: emailError(input.email), password: passwordError(input.password) });
}

export function validateRegistration(input: { name: string; email: string; password: string; confirmPassword: string }) {
  return compact({
    name: input.name.trim().length >= MIN_NAME_LENGTH ? undefined : MESSAGES.name,
    email: emailError(input.email),
    password: passwordError(input.password),
    confirmPassword: input.confirmPassword === input.password ? undefined : MESSAGES.confirmPassword,
  });
}

export function validateForgotPassword(input: { email: string }) {
  return compact({ email: emailError(input.email) });
}

export function validateResetPassword(input: { password: string; confirmPassword: string }) {
  return compact({
    password: passwordError(input.password),
    confirmPassword: input.confirmPassword === input.password ? undefined : MESSAGES.confirmPassword,
  });
}
