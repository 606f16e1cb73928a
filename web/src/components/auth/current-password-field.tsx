import type { ComponentProps } from "react";
import { Field } from "../ui/field";

/**
 * The account's password, asked again to confirm it is the owner (a new API key, two-factor
 * changes, a new e-mail or password): the browser offers the saved password, not a new one.
 */
export function CurrentPasswordField(props: Omit<ComponentProps<typeof Field>, "label" | "type" | "autoComplete">) {
  return <Field label="Current password" type="password" autoComplete="current-password" {...props} />;
}
